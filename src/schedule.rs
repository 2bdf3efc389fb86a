//! How the work is cut into tiles. Shared by the host and `kernels/attention.cu`
//! (which computes the same mapping on the device from `qo_indptr`).
//!
//! GQA packing: the 6 query heads that share a kv head are laid out as
//! consecutive rows, token-major: packed row `r` of a sequence is token `r / 6`,
//! query head `kv_head * 6 + r % 6`. A tile is `BLOCK_M` packed rows of one
//! sequence and one kv head; it loads each key/value row once for all 6 heads.
//!
//! Tiles of all sequences are numbered without knowing the sequence lengths on
//! the host: sequence `b` owns tiles `tile_start(b) .. tile_start(b + 1)` with
//! `tile_start(b) = floor(6 * qo_indptr[b] / BLOCK_M) + b`. That range always
//! holds the `ceil(6 * q_len / BLOCK_M)` tiles the sequence needs (at most one
//! spare, which exits at once), so the grid size depends only on `total_q` and
//! `batch`, both known from the shapes: no host synchronisation.

use crate::problem::GROUP_SIZE;

/// Packed rows (token x head) per tile.
pub const BLOCK_M: usize = 128;
/// Keys per inner step.
pub const BLOCK_N: usize = 128;

/// First tile index of sequence `b`, given `qo_indptr[b]`.
pub fn tile_start(qo_start: usize, b: usize) -> usize {
    GROUP_SIZE * qo_start / BLOCK_M + b
}

/// Tiles per kv head for a call: an upper bound that needs only the shapes.
pub fn tiles_per_head(total_q: usize, batch: usize) -> usize {
    tile_start(total_q, batch)
}
