// Epilogue: bf16 output through shared memory (a staging buffer, each
// warpgroup its own 64 rows) so that global stores are full 16-byte chunks of
// 256-byte rows, coalesced; base-2 lse from the quad leaders.
#pragma once
#include "attn/kernel_traits.cuh"

namespace pagedattn {

template <class T, class TO, class TC, class TensorO>
__device__ __forceinline__ void store_output(const Params& p, const WorkTile& w, int m0, int cw, int ct,
                                             TO const& tOrO, TC const& tOcO, float (&lse)[2], TensorO& sO) {
  int rows_total = w.q_len * kGroup;
  // Every thread of the warpgroup is done reading its previous tile's rows.
  cutlass::arch::NamedBarrier::sync(128, 1 + cw);
  // registers -> shared, two bf16 per 4-byte store (adjacent columns).
  CUTLASS_PRAGMA_UNROLL
  for (int v = 0; v < cute::size(tOrO); v += 2) {
    int row = cute::get<0>(tOcO(v)), col = cute::get<1>(tOcO(v));
    __nv_bfloat162 pair = __floats2bfloat162_rn(tOrO(v), tOrO(v + 1));
    *reinterpret_cast<__nv_bfloat162*>(&sO(row, col)) = pair;
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
  cutlass::arch::NamedBarrier::sync(128, 1 + cw);  // this warpgroup's rows are staged
  // shared -> global: 64 rows x 16 chunks of 16 bytes, 8 per thread.
  int lt = ct % 128;
  CUTLASS_PRAGMA_UNROLL
  for (int i = 0; i < 64 * 16 / 128; ++i) {
    int c = i * 128 + lt;
    int row = cw * 64 + c / 16, chunk = c % 16;
    int r = m0 + row;
    if (r < rows_total) {
      int token = r / kGroup, head = w.kv_head * kGroup + r % kGroup;
      uint4 val = *reinterpret_cast<const uint4*>(&sO(row, chunk * 8));
      *reinterpret_cast<uint4*>(p.out + ((long long)(w.q_start + token) * kNumQoHeads + head) * kHeadDim +
                                chunk * 8) = val;
    }
  }
}

}  // namespace pagedattn
