//! The kernels' binary interface: embedded cubins, entry-point names and the
//! `#[repr(C)]` mirror of `kernels/attn/params.cuh`.

use cudarc::driver::DeviceRepr;

/// The fast kernel and the fp32 reference, compiled for sm_90a by build.rs.
#[cfg(pagedattn_kernels)]
pub(crate) static ATTENTION_CUBIN: Option<&[u8]> =
    Some(include_bytes!(concat!(env!("OUT_DIR"), "/attention.cubin")));
#[cfg(pagedattn_kernels)]
pub(crate) static REFERENCE_CUBIN: Option<&[u8]> =
    Some(include_bytes!(concat!(env!("OUT_DIR"), "/reference.cubin")));
#[cfg(not(pagedattn_kernels))]
pub(crate) static ATTENTION_CUBIN: Option<&[u8]> = None;
#[cfg(not(pagedattn_kernels))]
pub(crate) static REFERENCE_CUBIN: Option<&[u8]> = None;

/// ptxas report of the build (registers, spills), for `pagedattn info`.
#[cfg(pagedattn_kernels)]
pub const PTXAS_REPORT: &str = include_str!(concat!(env!("OUT_DIR"), "/ptxas_report.txt"));
#[cfg(not(pagedattn_kernels))]
pub const PTXAS_REPORT: &str = "built without GPU kernels";

/// One entry point of the attention module.
pub(crate) struct Entry {
    /// Kernel function name.
    pub function: &'static str,
    /// The same configuration's entry point for direct calls (a unit per
    /// CTA, nothing to split: no plan, tickets or merge in its code).
    pub direct_function: &'static str,
    /// `__device__ const int` holding its dynamic shared-memory size.
    pub smem_symbol: &'static str,
    /// Threads per CTA.
    pub threads: u32,
}

/// The entry point of a tile configuration.
pub(crate) fn entry(config: crate::schedule::TileConfig) -> Entry {
    match config {
        crate::schedule::TileConfig::M128 => Entry {
            function: "paged_prefill_m128",
            direct_function: "paged_prefill_m128_direct",
            smem_symbol: "paged_prefill_m128_smem_bytes",
            threads: 384,
        },
        crate::schedule::TileConfig::M128Deep => Entry {
            function: "paged_prefill_m128d",
            direct_function: "paged_prefill_m128d_direct",
            smem_symbol: "paged_prefill_m128d_smem_bytes",
            threads: 384,
        },
        crate::schedule::TileConfig::M128DeepV => Entry {
            function: "paged_prefill_m128dv",
            direct_function: "paged_prefill_m128dv_direct",
            smem_symbol: "paged_prefill_m128dv_smem_bytes",
            threads: 384,
        },
        crate::schedule::TileConfig::M64 => Entry {
            function: "paged_prefill_m64",
            direct_function: "paged_prefill_m64_direct",
            smem_symbol: "paged_prefill_m64_smem_bytes",
            threads: 256,
        },
        crate::schedule::TileConfig::M192 => Entry {
            function: "paged_prefill_m192",
            direct_function: "paged_prefill_m192_direct",
            smem_symbol: "paged_prefill_m192_smem_bytes",
            threads: 512,
        },
    }
}
pub(crate) const REFERENCE_KERNEL: &str = "reference_attention";

/// Bits the kernel ORs into its error flag (`ErrorBits` in params.cuh).
pub(crate) const ERR_PAGE_OUT_OF_RANGE: i32 = 1;
pub(crate) const ERR_BAD_QO_RANGE: i32 = 2;
pub(crate) const ERR_BAD_KV_RANGE: i32 = 4;

/// Mirror of `pagedattn::Params`. Field order and types must match.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct Params {
    pub q: u64,
    pub k_cache: u64,
    pub v_cache: u64,
    pub qo_indptr: u64,
    pub kv_indptr: u64,
    pub kv_indices: u64,
    pub out: u64,
    pub lse: u64,
    pub ws_counters: u64,
    pub ws_sem: u64,
    pub ws_partial_lse: u64,
    pub ws_partial_o: u64,
    pub plan: u64,
    pub total_q: i64,
    pub num_pages: i64,
    pub batch: i32,
    pub num_kv_indices: i32,
    pub tiles_per_head: i32,
    pub partial_slots: i32,
    pub split_blocks: i32,
    pub sm_scale: f32,
    pub sm_scale_log2: f32,
    /// > 0: `inline_plan` holds the host plan of this many sequences.
    pub inline_batch: i32,
    pub inline_plan: [i32; crate::units::INLINE_PLAN_INTS],
}

// SAFETY: plain old data with the C layout the kernel reads.
unsafe impl DeviceRepr for Params {}

/// Describes the error bits for a typed error.
pub(crate) fn describe_error_bits(bits: i32) -> String {
    let mut parts = Vec::new();
    if bits & ERR_PAGE_OUT_OF_RANGE != 0 {
        parts.push("a kv_indices entry is outside [0, num_pages) (those keys were skipped)");
    }
    if bits & ERR_BAD_QO_RANGE != 0 {
        parts.push(
            "qo_indptr is not a valid partition of [0, total_q] (those sequences were skipped)",
        );
    }
    if bits & ERR_BAD_KV_RANGE != 0 {
        parts.push("kv_indptr is not a valid partition of [0, num_kv_indices] (those sequences were skipped)");
    }
    if parts.is_empty() {
        parts.push("unknown error bits");
    }
    format!("{} (flag {bits:#x})", parts.join("; "))
}
