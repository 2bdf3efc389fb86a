//! Backends: the exact CPU reference and the Hopper CUDA kernel.
//!
//! Both are driven the same way by the benchmark: `prepare` binds a call's host
//! inputs to the backend (for CUDA: uploads them), then `run` and `time` may be
//! called any number of times.

pub mod cpu;
pub mod cuda;

use crate::error::Result;
use crate::problem::{HostProblem, Output};

/// Measured ceilings used for the floor of SPEC.md.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Peaks {
    /// bf16 matrix-multiply rate, TFLOP/s.
    pub matmul_tflops: f64,
    /// Device (or memory) copy bandwidth counting read + write, GB/s.
    pub copy_gbps: f64,
    /// Whether these were measured in this run (false: documented H200 defaults).
    pub measured: bool,
}

impl Peaks {
    /// The H200's measured ceilings from SPEC.md, for runs that cannot measure them.
    pub const H200_DEFAULT: Peaks = Peaks {
        matmul_tflops: 772.0,
        copy_gbps: 4217.0,
        measured: false,
    };
}

/// A call's inputs bound to a backend, ready to run repeatedly.
pub trait Prepared {
    /// One call; the output copied back to the host.
    fn run(&mut self) -> Result<Output>;
    /// `reps` timed calls after `warmup` untimed ones; per-call microseconds,
    /// by the backend's protocol (CUDA: events around a graph replay, L2 flushed).
    fn time(&mut self, warmup: usize, reps: usize) -> Result<Vec<f64>>;
}

/// A way to compute the operation.
pub trait Backend {
    /// Short name: `cpu` or `cuda`.
    fn name(&self) -> &'static str;
    /// What it runs on, for reports.
    fn device(&self) -> String;
    /// Validates the call and binds its inputs.
    fn prepare<'a>(&'a self, p: &HostProblem<'_>) -> Result<Box<dyn Prepared + 'a>>;
    /// The ceilings for the floor, measured where the backend can.
    fn peaks(&self) -> Result<Peaks>;
}
