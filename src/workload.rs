//! Workload files (JSONL, see SPEC.md) and the seeded inputs drawn for them.

use serde::{Deserialize, Serialize};

/// One workload: the shapes and index arrays of a call. `q`, `k_cache` and
/// `v_cache` are not stored; they are drawn from a seeded standard normal.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Workload {
    pub name: String,
    pub total_q: usize,
    pub num_pages: usize,
    pub qo_indptr: Vec<i32>,
    pub kv_indptr: Vec<i32>,
    pub kv_indices: Vec<i32>,
    pub sm_scale: f32,
}
