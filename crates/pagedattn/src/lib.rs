//! Batched GQA causal prefill attention over a paged KV cache.
//!
//! The operation (see `SPEC.md` in the repository): 24 query heads sharing 4 kv
//! heads (group 6), head_dim 128, page_size 1, bf16 inputs, causal mask aligned
//! to the bottom right, bf16 output and a base-2 log-sum-exp per (token, head).
//!
//! Architecture:
//! - [`problem`]: the operation's constants, the shapes of a call and its validation;
//! - [`schedule`]: how the work is cut into tiles (shared by the host plan and the kernel);
//! - [`backend`]: the exact CPU backend and the Hopper CUDA backend;
//! - [`workload`]: workload files and seeded inputs;
//! - [`bench`]: timing, floors, reference checks.

pub mod backend;
pub mod bench;
pub mod check;
pub mod error;
pub mod generate;
pub mod problem;
pub mod schedule;
pub mod workload;

pub use error::{Error, Result};
pub use problem::{Dims, HostProblem, Output};
