//! The two ways to compute the operation.
//!
//! - [`cpu`]: the exact CPU backend, the reference every other backend is
//!   checked against (and a slower, independent [`cpu::naive_attention`]);
//! - [`cuda`]: the Hopper kernel and its launch API ([`cuda::PagedPrefill`]
//!   on cudarc buffers and streams), with owned device buffers and a
//!   device-0 opener for tests and simple callers.

pub mod cpu;
pub mod cuda;
