// Epilogue: bf16 output through shared memory (a staging buffer, each
// warpgroup its own 64 rows) so that global stores are full 16-byte chunks of
// 256-byte rows, coalesced; base-2 lse from the quad leaders.
#pragma once
#include "attn/kernel_traits.cuh"
#include "attn/load_pipeline.cuh"

namespace pagedattn {

// Shared-memory addresses are formed explicitly (the 128-byte swizzle of
// sw128_offset_bytes, strength-reduced per thread) rather than through the
// swizzled CuTe layout: with a runtime thread index that layout costs ~25
// integer instructions per 4-byte store, which on short tiles made the
// epilogue a third of the consumer's instructions.
// Staged rows -> global memory: 16-byte chunk `chunk` of rows row, row + 8,
// ... (kIters rows) of the tile staged at s_stage. Packed row r is token
// r / 6, head r % 6 of the kv head's group; 8 rows on is 1 token and 2 heads
// on, plus a token when the head passes 6, so the output row advances by 24
// + 2 or by 24 + 2 + 24 - 6 rows: no division or 64-bit multiply in the loop.
template <class T, int kIters, int kUnroll = kIters>
__device__ __forceinline__ void copy_out_rows(const Params& p, const WorkUnit& w, int m0, int row, int chunk,
                                              uint32_t s_stage) {
  const int rows_total = w.q_len * kGroup;
  const uint32_t src = s_stage + sw128_offset_bytes<T::kBlockM>(row, chunk);  // + 1024 per 8 rows
  int r = m0 + row;
  int rem = r % kGroup;
  __nv_bfloat16* dst = p.out + ((long long)(w.q_start + r / kGroup) * kNumQoHeads + w.kv_head * kGroup + rem) * kHeadDim +
                       chunk * 8;
#pragma unroll kUnroll
  for (int i = 0; i < kIters; ++i) {
    if (r < rows_total) {
      uint4 val;
      asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];"
                   : "=r"(val.x), "=r"(val.y), "=r"(val.z), "=r"(val.w)
                   : "r"(src + i * 8 * 128));
      *reinterpret_cast<uint4*>(dst) = val;
    }
    r += 8;
    rem += 2;
    dst += (kNumQoHeads + 2) * kHeadDim;
    if (rem >= kGroup) {
      rem -= kGroup;
      dst += (kNumQoHeads - kGroup) * kHeadDim;
    }
  }
}

// kProducerCopies: the producer copies the staged rows out before it refills
// the slot (two-slot kernels, planned calls), so the consumers leave the
// unit once their rows are staged; split chunks still copy their own.
template <class T, bool kProducerCopies, class TO, class TC>
__device__ __forceinline__ void store_output(const Params& p, const WorkUnit& w, int m0, int cw, int ct,
                                             TO const& tOrO, TC const& tOcO, float (&lse)[2],
                                             uint32_t s_stage) {
  constexpr int kRows = T::kBlockM;  // rows of the staging buffer (sw128 layout)
  int rows_total = w.q_len * kGroup;
  // Every thread of the warpgroup is done reading its previous tile's rows.
  named_bar_sync(kWarpgroupThreads, kBarConsumerWG + cw);
  // registers -> shared, two bf16 per 4-byte store (adjacent columns). The
  // wgmma accumulator holds, for v = c + 2h + 4j, element (row0 + 8h,
  // col0 + 8j + c): rows differ by whole 8-row swizzle atoms, so row % 8 and
  // with it the swizzle pattern is the same for all of a thread's values.
  {
    const int row0 = cute::get<0>(tOcO(0)), col0 = cute::get<1>(tOcO(0));  // col0 = 2 * (lane % 4)
    const int r8 = row0 % 8;
    const uint32_t base = s_stage + row0 * 128 + col0 * 2;
    CUTLASS_PRAGMA_UNROLL
    for (int j = 0; j < kHeadDim / 8; ++j) {
      const uint32_t col_off = (j / 8) * kRows * 128 + (((j % 8) ^ r8) * 16);
      CUTLASS_PRAGMA_UNROLL
      for (int h = 0; h < 2; ++h) {
        const int v = 4 * j + 2 * h;
        __nv_bfloat162 pair = __floats2bfloat162_rn(tOrO(v), tOrO(v + 1));
        asm volatile("st.shared.b32 [%0], %1;" ::"r"(base + h * 8 * 128 + col_off),
                     "r"(*reinterpret_cast<uint32_t*>(&pair)));
      }
    }
  }
  // lse: lanes 0, 4, ... own rows (r, r + 8) of the quad.
  if ((ct & 3) == 0) {
    CUTLASS_PRAGMA_UNROLL
    for (int h = 0; h < 2; ++h) {
      int r = m0 + cute::get<0>(tOcO(2 * h));
      if (r < rows_total) {
        int token = r / kGroup, head = w.kv_head * kGroup + r % kGroup;
        p.lse[(long long)(w.q_start + token) * kNumQoHeads + head] = lse[h];
      }
    }
  }
  if constexpr (kProducerCopies) {
    if (w.n_chunks == 1) return;  // each thread's q_empty arrival releases its staged rows to the producer
  }
  named_bar_sync(kWarpgroupThreads, kBarConsumerWG + cw);  // this warpgroup's rows are staged
  // shared -> global: 64 rows x 16 chunks of 16 bytes; thread lt moves chunk
  // lt % 16 of rows lt / 16 + 8 i (i < 8).
  const int lt = ct % kWarpgroupThreads;
  copy_out_rows<T, 64 / 8>(p, w, m0, cw * 64 + lt / 16, lt % 16, s_stage);
}

}  // namespace pagedattn
