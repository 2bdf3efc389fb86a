//! The harness of `pagedattn`: what the `pagedattn` binary (bench, check,
//! list) and the library's tests use besides the library itself.
//!
//! - [`workload`]: JSONL workload files, the embedded seed and scale sets,
//!   seeded inputs, FLOP and byte counts, the host-memory check;
//! - [`generate`]: random batches and edge cases for tests;
//! - [`backend`]: the CPU and CUDA backends behind one trait, with their
//!   timing protocols (CUDA: events around a graph replay, L2 flushed) and
//!   references;
//! - [`bench`](mod@bench): the driver (check, time, floor, [`bench::BenchReport`]).
//!
//! Everything here drives the library's public API (`pagedattn::PagedPrefill`
//! and friends); nothing reaches into it.

pub mod backend;
pub mod bench;
pub mod error;
pub mod generate;
mod timing;
pub mod workload;

pub use error::{Error, Result};
