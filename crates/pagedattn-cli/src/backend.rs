//! The backends the benchmark drives: the library's CPU and CUDA backends
//! behind one trait, each with its timing protocol, its default repeats and
//! the independent reference its output is checked against.
//!
//! - [`CpuBench`]: `pagedattn::cpu_attention`, wall-clock timing; checked
//!   against `pagedattn::naive_attention` (SPEC.md written out, one row at a
//!   time) on calls small enough for it.
//! - [`CudaBench`]: the library's [`CudaBackend`], timed per SPEC.md (CUDA
//!   events around a graph replay of one call, L2 flushed before each);
//!   checked against the CPU backend, or the GPU fp32 reference kernel on
//!   calls too large for the CPU.

use std::sync::Arc;
use std::time::Instant;

use pagedattn::cudarc::driver::CudaStream;
use pagedattn::half::bf16;
use pagedattn::problem::{validate, HostProblem, Output};
use pagedattn::{backend::cpu, CudaBackend, DeviceBuffers, DevicePlan, Options as KernelOptions};

use crate::bench::Options;
use crate::error::Result;
use crate::timing::{self, L2State};
use crate::workload::Inputs;

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
    /// by the backend's protocol.
    fn time(&mut self, warmup: usize, reps: usize) -> Result<Vec<f64>>;
    /// How the call launches, in words (CUDA: tile configuration and entry
    /// point, e.g. `m128 host plan`); `None` where that does not apply.
    fn launch(&self) -> Option<String> {
        None
    }
}

/// What a backend's output is checked against.
pub enum Reference {
    /// An independent computation of the same call.
    Output {
        /// Its result.
        output: Output,
        /// What computed it: `cpu`, `cuda-fp32` or `naive`.
        name: &'static str,
    },
    /// No independent reference for this call; why, in words.
    Unavailable(String),
}

/// A way to compute the operation, as the benchmark drives it.
pub trait Backend {
    /// Short name: `cpu` or `cuda`.
    fn name(&self) -> &'static str;
    /// What it runs on, for reports.
    fn device(&self) -> String;
    /// Validates the call and binds its inputs.
    fn prepare<'a>(&'a self, p: &HostProblem<'_>) -> Result<Box<dyn Prepared + 'a>>;
    /// The ceilings for the floor, measured where the backend can.
    fn peaks(&self) -> Result<Peaks>;
    /// The independent reference this backend's output is checked against.
    fn reference(&self, p: &HostProblem<'_>, pairs: u64, opts: &Options) -> Result<Reference>;
    /// Why this backend does not run a call of `pairs` visible pairs, if it does not.
    fn skip(&self, _pairs: u64, _opts: &Options) -> Option<String> {
        None
    }
    /// Warm-up and timed calls: the flags when given, else the backend's
    /// defaults (`first_call_s`: how long the first, checked call took).
    fn repeats(&self, opts: &Options, first_call_s: f64) -> (usize, usize);
}

/// SPEC.md: at least 100 timed calls on the GPU, after warm-up.
pub const CUDA_WARMUP: usize = 10;
/// Timed calls on the GPU.
pub const CUDA_REPS: usize = 100;
/// The CPU is a reference, not a rival: a few calls suffice.
pub const CPU_WARMUP: usize = 1;
/// Timed calls on the CPU (fewer when one call exceeds the budget).
pub const CPU_REPS: usize = 3;

/// The library's exact CPU backend (rayon's global thread pool).
#[derive(Clone, Copy, Debug, Default)]
pub struct CpuBench;

impl CpuBench {
    /// The CPU backend.
    pub fn new() -> Self {
        CpuBench
    }
}

/// A call's inputs copied into owned buffers, so they outlive the caller's borrow.
struct CpuPrepared {
    inputs: Inputs,
}

impl Prepared for CpuPrepared {
    fn run(&mut self) -> Result<Output> {
        Ok(cpu::attention(&self.inputs.problem())?)
    }

    /// Wall-clock microseconds per call (`std::time::Instant`), output buffers
    /// allocated once outside the timed region.
    fn time(&mut self, warmup: usize, reps: usize) -> Result<Vec<f64>> {
        let p = self.inputs.problem();
        let mut out = vec![bf16::ZERO; p.dims.q_elems()];
        let mut lse = vec![0f32; p.dims.lse_elems()];
        for _ in 0..warmup {
            cpu::attention_into(&p, &mut out, &mut lse)?;
        }
        let mut times = Vec::with_capacity(reps);
        for _ in 0..reps {
            let t = Instant::now();
            cpu::attention_into(&p, &mut out, &mut lse)?;
            times.push(t.elapsed().as_secs_f64() * 1e6);
        }
        Ok(times)
    }
}

impl Backend for CpuBench {
    fn name(&self) -> &'static str {
        "cpu"
    }

    fn device(&self) -> String {
        format!("CPU, {} threads", rayon::current_num_threads())
    }

    fn prepare<'a>(&'a self, p: &HostProblem<'_>) -> Result<Box<dyn Prepared + 'a>> {
        validate(p)?;
        Ok(Box::new(CpuPrepared {
            inputs: Inputs::from_problem(p),
        }))
    }

    /// The floor always refers to the H200, whatever runs the call.
    fn peaks(&self) -> Result<Peaks> {
        Ok(Peaks::H200_DEFAULT)
    }

    fn reference(&self, p: &HostProblem<'_>, pairs: u64, opts: &Options) -> Result<Reference> {
        if pairs > opts.naive_max_pairs {
            return Ok(Reference::Unavailable(format!(
                "not compared: {pairs} pairs > {} for the naive reference \
                 (--naive-max-pairs N); the CPU backend is the reference",
                opts.naive_max_pairs
            )));
        }
        Ok(Reference::Output {
            output: pagedattn::naive_attention(p)?,
            name: "naive",
        })
    }

    fn skip(&self, pairs: u64, opts: &Options) -> Option<String> {
        (pairs > opts.max_cpu_pairs).then(|| {
            format!(
                "skipped (too large for cpu: {pairs} pairs > {}; --max-cpu-pairs N to force)",
                opts.max_cpu_pairs
            )
        })
    }

    /// A few calls, cut down so one workload takes about `cpu_budget_s`
    /// (the first, checked call already warmed it up).
    fn repeats(&self, opts: &Options, first_call_s: f64) -> (usize, usize) {
        let mut warmup = opts.warmup.unwrap_or(CPU_WARMUP);
        let reps = match opts.reps {
            Some(r) => r,
            None => {
                let fits = (opts.cpu_budget_s / first_call_s.max(1e-9)).floor() as usize;
                if (warmup + CPU_REPS) > fits && opts.warmup.is_none() {
                    warmup = 0;
                }
                CPU_REPS.min(fits.saturating_sub(warmup)).max(1)
            }
        };
        (warmup, reps)
    }
}

/// What [`CudaBench`] times.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Timing {
    /// SPEC.md: CUDA events around a graph replay of one unchecked launch,
    /// L2 flushed before each (the kernel-only number).
    #[default]
    Graph,
    /// Host wall clock of one `launch_checked` call (reset of the error flag,
    /// launch, flag read back, stream synchronised), L2 flushed before each:
    /// what the checked mode costs a caller.
    Checked,
    /// Host wall clock of one unchecked `launch` and a stream synchronise,
    /// L2 flushed before each: the same clock as `Checked`, so the two differ
    /// by exactly the checked mode's extra work.
    Eager,
    /// As `Graph`, without the L2 flush: the call's inputs and the kernel's
    /// code as the previous call left them (a layer's call in a serving loop
    /// sees something between this and `Graph`).
    GraphWarm,
    /// As `Graph`, with the same call on a second set of buffers replayed
    /// between the flush and the timed call: the code and the host plan's
    /// image (both calls share it) warm, the call's own data cold. `Graph`
    /// minus this is what fetching them cold costs a call.
    GraphColdData,
}

/// Where a timed CUDA call's work-unit plan is made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PlanSource {
    /// On the host, once per workload before timing (`PagedPrefill::plan`),
    /// then `launch_planned`: FlashInfer's `plan()` / `run()` split, the
    /// same as its harness times.
    #[default]
    Host,
    /// In the kernel, from the indptrs in device memory (`PagedPrefill::launch`):
    /// what a graph captured once and replayed with new sequence lengths runs.
    Device,
}

/// The CUDA backend on device 0, as the benchmark drives it.
pub struct CudaBench {
    gpu: CudaBackend,
    l2_bytes: usize,
    timing: Timing,
    plan: PlanSource,
}

impl CudaBench {
    /// Opens device 0 with these kernel options, timing protocol and plan source.
    pub fn new(opts: KernelOptions, timing: Timing, plan: PlanSource) -> Result<Self> {
        let gpu = CudaBackend::with_options(opts)?;
        let l2_bytes = gpu
            .stream()
            .context()
            .attribute(
                pagedattn::cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE,
            )
            .unwrap_or(0) as usize;
        Ok(CudaBench {
            gpu,
            l2_bytes: l2_bytes.max(1 << 20),
            timing,
            plan,
        })
    }

    /// The library backend underneath.
    pub fn gpu(&self) -> &CudaBackend {
        &self.gpu
    }

    fn stream(&self) -> &Arc<CudaStream> {
        self.gpu.stream()
    }
}

/// A workload bound to the GPU: its buffers and, with [`PlanSource::Host`], its plan.
struct CudaPrepared<'a> {
    b: &'a CudaBench,
    bufs: DeviceBuffers,
    /// [`Timing::GraphColdData`]: the same inputs in other buffers.
    twin: Option<DeviceBuffers>,
    plan: Option<DevicePlan>,
    /// `PagedPrefill::launch_info`, in words.
    launch: Option<String>,
}

impl CudaPrepared<'_> {
    /// One unchecked call, as timed.
    fn launch(&mut self) -> pagedattn::Result<()> {
        Self::launch_on(self.b, self.plan.as_ref(), &mut self.bufs)
    }

    /// One unchecked call on `bufs`.
    fn launch_on(
        b: &CudaBench,
        plan: Option<&DevicePlan>,
        bufs: &mut DeviceBuffers,
    ) -> pagedattn::Result<()> {
        let (k, s) = (b.gpu.kernel(), b.stream());
        match plan {
            Some(plan) => {
                bufs.with_views(|v, out, lse, ws| k.launch_planned(plan, s, v, out, lse, ws))
            }
            None => bufs.with_views(|v, out, lse, ws| k.launch(s, v, out, lse, ws)),
        }
    }

    /// One call, then the device error flag read back and cleared.
    fn launch_checked(&mut self) -> pagedattn::Result<()> {
        self.launch()?;
        let (k, s) = (self.b.gpu.kernel(), self.b.stream());
        k.take_device_errors(s, &mut self.bufs.workspace)
    }
}

impl Prepared for CudaPrepared<'_> {
    fn run(&mut self) -> Result<Output> {
        let s = self.b.stream();
        self.bufs.poison(s)?;
        self.launch_checked()?;
        Ok(self.bufs.download(s)?)
    }

    fn time(&mut self, warmup: usize, reps: usize) -> Result<Vec<f64>> {
        let (s, l2) = (self.b.stream().clone(), self.b.l2_bytes);
        match self.b.timing {
            Timing::Checked => {
                timing::time_host(&s, l2, warmup, reps, || Ok(self.launch_checked()?))
            }
            Timing::Eager => timing::time_host(&s, l2, warmup, reps, || {
                self.launch()?;
                s.synchronize()?;
                Ok(())
            }),
            Timing::Graph | Timing::GraphWarm | Timing::GraphColdData => {
                let graph = timing::capture(&s, || Ok(self.launch()?))?;
                // The twin's buffers exist only for GraphColdData.
                let (b, plan) = (self.b, self.plan.as_ref());
                let twin = match self.twin.as_mut() {
                    Some(t) => timing::capture(&s, || Ok(Self::launch_on(b, plan, t)?))?,
                    None => None,
                };
                let state = match self.b.timing {
                    Timing::GraphWarm => L2State::Warm,
                    Timing::GraphColdData => L2State::ColdData(twin.as_ref()),
                    _ => L2State::Cold,
                };
                timing::time_graph(&s, graph.as_ref(), l2, state, warmup, reps)
            }
        }
    }

    fn launch(&self) -> Option<String> {
        self.launch.clone()
    }
}

impl Backend for CudaBench {
    fn name(&self) -> &'static str {
        "cuda"
    }

    fn device(&self) -> String {
        let d = self.gpu.device();
        let d = match self.plan {
            PlanSource::Host => d.to_string(),
            PlanSource::Device => format!("{d} [plan: on the device]"),
        };
        match self.timing {
            Timing::Graph => d,
            Timing::GraphWarm => format!("{d} [timing: graph replay, L2 not flushed]"),
            Timing::GraphColdData => {
                format!(
                    "{d} [timing: graph replay, L2 flushed, code and plan warmed by a twin call]"
                )
            }
            Timing::Checked => format!("{d} [timing: checked launches, host clock]"),
            Timing::Eager => format!("{d} [timing: unchecked launches, host clock]"),
        }
    }

    fn prepare<'a>(&'a self, p: &HostProblem<'_>) -> Result<Box<dyn Prepared + 'a>> {
        validate(p)?;
        let bufs = DeviceBuffers::upload(self.gpu.kernel(), self.stream(), p)?;
        let twin = match self.timing {
            Timing::GraphColdData => {
                Some(DeviceBuffers::upload(self.gpu.kernel(), self.stream(), p)?)
            }
            _ => None,
        };
        let plan = match self.plan {
            PlanSource::Host => Some(self.gpu.kernel().plan(
                self.stream(),
                &p.dims,
                p.qo_indptr,
                p.kv_indptr,
                Some(p.kv_indices),
            )?),
            PlanSource::Device => None,
        };
        let launch = self
            .gpu
            .kernel()
            .launch_info(&p.dims, plan.as_ref())
            .map(|l| l.to_string());
        Ok(Box::new(CudaPrepared {
            b: self,
            bufs,
            twin,
            plan,
            launch,
        }))
    }

    fn peaks(&self) -> Result<Peaks> {
        timing::measure_peaks(self.stream())
    }

    fn reference(&self, p: &HostProblem<'_>, pairs: u64, opts: &Options) -> Result<Reference> {
        Ok(if pairs <= opts.cpu_ref_max_pairs {
            Reference::Output {
                output: cpu::attention(p)?,
                name: "cpu",
            }
        } else {
            Reference::Output {
                output: self.gpu.reference(p)?,
                name: "cuda-fp32",
            }
        })
    }

    fn repeats(&self, opts: &Options, _first_call_s: f64) -> (usize, usize) {
        (
            opts.warmup.unwrap_or(CUDA_WARMUP),
            opts.reps.unwrap_or(CUDA_REPS),
        )
    }
}
