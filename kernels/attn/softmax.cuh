// Online softmax on the S accumulator, in registers, in the exp2 domain.
//
// A thread of an m64nNk16 wgmma holds, for its two rows (r, r + 8), N/4 values
// each: flat accumulator index v belongs to row half (v >> 1) & 1. The four
// threads of a quad share the rows, so row reductions are two xor-shuffles.
#pragma once
#include <cute/tensor.hpp>

namespace pagedattn {

__device__ __forceinline__ float fast_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

__device__ __forceinline__ float quad_max(float x) {
  x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 1));
  return fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 2));
}
__device__ __forceinline__ float quad_sum(float x) {
  x += __shfl_xor_sync(0xffffffffu, x, 1);
  return x + __shfl_xor_sync(0xffffffffu, x, 2);
}

struct OnlineSoftmax {
  float row_max[2];  // running max of the scaled (log2-domain) logits
  float row_sum[2];  // this thread's partial sum of exp2(s - row_max)

  __device__ __forceinline__ OnlineSoftmax() {
    row_max[0] = row_max[1] = -INFINITY;
    row_sum[0] = row_sum[1] = 0.f;
  }

  // S holds scaled, masked logits (-inf where masked). Replaces S by the
  // unnormalised probabilities and rescales O for the new running max.
  template <class TS, class TO>
  __device__ __forceinline__ void step(TS& tSrS, TO& tOrO) {
    float mx[2] = {row_max[0], row_max[1]};
    CUTLASS_PRAGMA_UNROLL
    for (int v = 0; v < cute::size(tSrS); ++v) mx[(v >> 1) & 1] = fmaxf(mx[(v >> 1) & 1], tSrS(v));
    float base[2], corr[2];
    CUTLASS_PRAGMA_UNROLL
    for (int h = 0; h < 2; ++h) {
      mx[h] = quad_max(mx[h]);
      // A row that has seen no key yet keeps max -inf: subtract 0 instead so
      // exp2 gives 0, not NaN.
      base[h] = mx[h] == -INFINITY ? 0.f : mx[h];
      corr[h] = fast_exp2(row_max[h] - base[h]);
      row_max[h] = mx[h];
    }
    float sum[2] = {0.f, 0.f};
    CUTLASS_PRAGMA_UNROLL
    for (int v = 0; v < cute::size(tSrS); ++v) {
      float e = fast_exp2(tSrS(v) - base[(v >> 1) & 1]);
      tSrS(v) = e;
      sum[(v >> 1) & 1] += e;
    }
    CUTLASS_PRAGMA_UNROLL
    for (int h = 0; h < 2; ++h) row_sum[h] = row_sum[h] * corr[h] + sum[h];
    CUTLASS_PRAGMA_UNROLL
    for (int v = 0; v < cute::size(tOrO); ++v) tOrO(v) *= corr[(v >> 1) & 1];
  }

  // Final normalisation: O /= l, and lse = max + log2(l) (-inf, O = 0 for rows
  // that saw no key).
  template <class TO>
  __device__ __forceinline__ void finalize(TO& tOrO, float (&lse)[2]) {
    float inv[2];
    CUTLASS_PRAGMA_UNROLL
    for (int h = 0; h < 2; ++h) {
      float l = quad_sum(row_sum[h]);
      bool any = !(l <= 0.f);  // NaN (from NaN inputs) propagates
      inv[h] = any ? 1.f / l : 0.f;
      lse[h] = any ? row_max[h] + __log2f(l) : -INFINITY;
    }
    CUTLASS_PRAGMA_UNROLL
    for (int v = 0; v < cute::size(tOrO); ++v) tOrO(v) *= inv[(v >> 1) & 1];
  }
};

}  // namespace pagedattn
