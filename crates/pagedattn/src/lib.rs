//! Batched GQA causal prefill attention over a paged KV cache, for NVIDIA
//! Hopper (sm_90a), with an exact CPU backend.
//!
//! The operation (`SPEC.md` in the repository): 24 query heads sharing 4 kv
//! heads (group 6), head_dim 128, page_size 1, bf16 inputs, a causal mask
//! aligned to the bottom right, bf16 output and a base-2 log-sum-exp per
//! (token, head). Sequence `b` has the queries `q[qo_indptr[b]..qo_indptr[b+1]]`
//! and the keys and values at the pages `kv_indices[kv_indptr[b]..kv_indptr[b+1]]`.
//!
//! # On the CPU
//!
//! ```
//! use pagedattn::{cpu_attention, half::bf16, Dims, HostProblem};
//!
//! // Two sequences: 3 queries over 3 keys, and 1 query over a 4-key prefix.
//! let dims = Dims::new(4, 8, 2, 7); // total_q, num_pages, batch, num_kv_indices
//! let q = vec![bf16::from_f32(0.1); dims.q_elems()];
//! let k = vec![bf16::from_f32(0.2); dims.kv_elems()];
//! let v = vec![bf16::from_f32(0.3); dims.kv_elems()];
//! let call = HostProblem {
//!     dims,
//!     q: &q,
//!     k_cache: &k,
//!     v_cache: &v,
//!     qo_indptr: &[0, 3, 4],
//!     kv_indptr: &[0, 3, 7],
//!     kv_indices: &[5, 1, 2, 7, 0, 3, 1],
//!     sm_scale: pagedattn::problem::default_sm_scale(),
//! };
//! let result = cpu_attention(&call)?; // validates, then computes
//! assert_eq!(result.out.len(), dims.q_elems());
//! assert_eq!(result.lse.len(), dims.lse_elems());
//! # Ok::<(), pagedattn::Error>(())
//! ```
//!
//! # On a Hopper GPU
//!
//! [`PagedPrefill`] loads the kernels into a cudarc context; each stream gets
//! a [`Workspace`]; [`PagedPrefill::launch`] validates what the host can see
//! and launches once (no synchronisation, graph-capturable);
//! [`PagedPrefill::launch_checked`] also waits and reports bad index contents
//! found on the device.
//!
//! ```no_run
//! use pagedattn::{half::bf16, DeviceProblem, Dims, PagedPrefill};
//!
//! let dims = Dims::new(3, 3, 1, 3);
//! let ctx = pagedattn::backend::cuda::open_device()?; // Error::NoDevice without a GPU, no panic
//! let stream = ctx.default_stream();
//! let attn = PagedPrefill::new(&ctx)?;
//! let mut ws = attn.workspace(&stream)?; // one per stream
//! let q = stream.alloc_zeros::<bf16>(dims.q_elems())?;
//! let kv = stream.alloc_zeros::<bf16>(dims.kv_elems())?;
//! let qo = stream.clone_htod(&[0i32, 3])?;
//! let kvp = stream.clone_htod(&[0i32, 3])?;
//! let idx = stream.clone_htod(&[2i32, 0, 1])?;
//! let mut out = stream.alloc_zeros::<bf16>(dims.q_elems())?;
//! let mut lse = stream.alloc_zeros::<f32>(dims.lse_elems())?;
//! let (q, kv, qo, kvp, idx) = (q.as_view(), kv.as_view(), qo.as_view(), kvp.as_view(), idx.as_view());
//! let call = DeviceProblem {
//!     dims, q: &q, k_cache: &kv, v_cache: &kv,
//!     qo_indptr: &qo, kv_indptr: &kvp, kv_indices: &idx,
//!     sm_scale: pagedattn::problem::default_sm_scale(),
//! };
//! attn.launch_checked(&stream, &call, &mut out.as_view_mut(), &mut lse.as_view_mut(), &mut ws)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! `examples/gpu.rs` runs the same from host data through [`DeviceBuffers`],
//! and exits cleanly on a machine without a Hopper GPU.
//!
//! # Modules
//!
//! - [`problem`]: the operation's constants, the description of a call
//!   ([`Problem`], generic over host slices, owned vectors and device views)
//!   and its validation;
//! - [`schedule`]: how the work is cut into tiles, [`HostPlan`];
//! - [`units`]: the kernel's work units (tiles and split-KV chunks), a
//!   mirror of the plan the kernel builds on the device, and that plan made
//!   on the host ([`DevicePlan`], from `PagedPrefill::plan`);
//! - [`backend`]: the CPU backend and the CUDA backend with its launch API;
//! - [`check`]: comparison with a reference by the SPEC.md bound;
//! - [`error`]: typed errors; nothing panics on bad input.
//!
//! # Features
//!
//! - `cuda` (default): compile the kernels with nvcc at build time. Without
//!   nvcc on the machine, `build.rs` installs the pinned nvcc and CUTLASS from
//!   PyPI (`python3 -m pip`) into `OUT_DIR` (or `$PAGEDATTN_TOOLCHAIN_DIR`);
//!   when that fails too the crate builds with one warning and the CUDA
//!   backend reports that it was built without kernels. With
//!   `default-features = false` nothing CUDA is compiled: the CPU path, and
//!   the same API returning that error.
//! - `serde`: `Serialize` for [`check::CheckReport`] and [`TileConfig`].
#![deny(missing_docs)]

pub mod backend;
pub mod check;
pub mod error;
pub mod problem;
pub mod schedule;
pub mod units;

/// The cudarc version this crate is built against (its buffers, streams and
/// contexts are the launch API's types).
pub use cudarc;
/// The `bf16` type of the inputs and outputs.
pub use half;

pub use backend::cpu::{attention as cpu_attention, naive_attention};
pub use backend::cuda::{
    CudaBackend, DeviceBuffers, DevicePlan, DeviceProblem, LaunchInfo, Options, PagedPrefill,
    RawCall, Workspace,
};
pub use error::{Error, Result};
pub use problem::{Dims, HostProblem, Output, OwnedProblem, Problem};
pub use schedule::{HostPlan, SplitPolicy, TileConfig};
