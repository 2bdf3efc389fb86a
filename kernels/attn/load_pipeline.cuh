// Producer side of the load pipeline: gathers Q rows and K/V rows (one page
// per key, page_size 1) with 16-byte cp.async into the swizzled shared-memory
// layouts the wgmma instructions read. TMA cannot gather rows by index on
// Hopper, so each of the 128 producer threads moves 16-byte chunks: 16 threads
// per 256-byte row, 8 rows per pass. Completion is signalled on mbarriers by
// cp.async.mbarrier.arrive.noinc, so no thread ever waits for its own loads.
#pragma once
#include "attn/kernel_traits.cuh"

namespace pagedattn {

__device__ __forceinline__ void cp_async_16_zfill(uint32_t dst, const void* gmem_src, bool valid) {
  int src_bytes = valid ? 16 : 0;  // 0: the 16 bytes are zero-filled, nothing is read
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(gmem_src), "r"(src_bytes)
               : "memory");
}

// Byte offset of element (row, col) in a kRows x 128 tile laid out as
// tile_to_shape(GMMA::Layout_K_SW128_Atom<bf16>): two 64-column blocks of
// kRows x 128 bytes, the 16-byte chunk index XOR-ed with row % 8.
template <int kRows>
__host__ __device__ constexpr int sw128_offset_bytes(int row, int chunk) {
  return (chunk / 8) * kRows * 128 + row * 128 + (((chunk % 8) ^ (row % 8)) * 16);
}

template <class T>
struct GatherLoader {
  static constexpr int kRowsPerPass = T::kProducerThreads / 16;  // 8
  static_assert(kRowsPerPass == 8, "rows a thread moves must share row % 8");
  int chunk;      // 16-byte chunk of the row this thread moves (0..15)
  int row0;       // first row this thread moves; then every 8 rows
  // Rows row0 + 8 i share row % 8, so their swizzled addresses are
  // 1024 bytes apart: one register per tile instead of one per row.
  int q_off, kv_off;

  __device__ __forceinline__ explicit GatherLoader(int producer_tid)
      : chunk(producer_tid % 16), row0(producer_tid / 16),
        q_off(sw128_offset_bytes<T::kBlockM>(producer_tid / 16, producer_tid % 16)),
        kv_off(sw128_offset_bytes<T::kBlockN>(producer_tid / 16, producer_tid % 16)) {}

  // Q tile: packed rows m0 .. m0 + kBlockM of the sequence (token-major, the 6
  // heads of one kv head per token). Rows past the sequence are zero-filled.
  __device__ __forceinline__ void load_q(const Params& p, const WorkTile& w, int m0, uint32_t sq, uint64_t* full) {
    int rows_total = w.q_len * kGroup;
    CUTLASS_PRAGMA_UNROLL
    for (int i = 0; i < T::kBlockM / kRowsPerPass; ++i) {
      int r = m0 + row0 + i * kRowsPerPass;
      bool valid = r < rows_total;
      int token = r / kGroup, head = w.kv_head * kGroup + r % kGroup;
      const __nv_bfloat16* src =
          valid ? p.q + ((long long)(w.q_start + token) * kNumQoHeads + head) * kHeadDim + chunk * 8 : p.q;
      cp_async_16_zfill(sq + q_off + i * 1024, src, valid);
    }
    cutlass::arch::cpasync_barrier_arrive_noinc(full);
  }

  // Page ids of the rows this thread moves for key block n; -1 for keys past
  // kv_len and for out-of-range ids (which also set the error flag).
  __device__ __forceinline__ void load_page_ids(const Params& p, const WorkTile& w, int n,
                                                int (&pid)[T::kBlockN / kRowsPerPass]) {
    int bad = 0;
    CUTLASS_PRAGMA_UNROLL
    for (int i = 0; i < T::kBlockN / kRowsPerPass; ++i) {
      int j = n * T::kBlockN + row0 + i * kRowsPerPass;
      int id = -1;
      if (j < w.kv_len) {
        id = __ldg(p.kv_indices + (long long)w.kv_start + j);
        if (id < 0 || id >= p.num_pages) {
          bad = 1;
          id = -1;
        }
      }
      pid[i] = id;
    }
    if (bad) atomicOr(p.error_flag, kErrPageOutOfRange);
  }

  // One K or V block: rows of `cache` at the given page ids, zero rows for -1.
  __device__ __forceinline__ void load_kv(const __nv_bfloat16* cache, const WorkTile& w,
                                          const int (&pid)[T::kBlockN / kRowsPerPass], uint32_t skv, uint64_t* full) {
    const __nv_bfloat16* head_base = cache + w.kv_head * kHeadDim + chunk * 8;
    CUTLASS_PRAGMA_UNROLL
    for (int i = 0; i < T::kBlockN / kRowsPerPass; ++i) {
#ifdef PAGEDATTN_DIAG_NO_KV_LOAD
      bool valid = false;  // diagnostic build: no K/V bytes read
#else
      bool valid = pid[i] >= 0;
#endif
      const __nv_bfloat16* src = valid ? head_base + (long long)pid[i] * (kNumKvHeads * kHeadDim) : cache;
      cp_async_16_zfill(skv + kv_off + i * 1024, src, valid);
    }
    cutlass::arch::cpasync_barrier_arrive_noinc(full);
  }
};

}  // namespace pagedattn
