// Online softmax on the S accumulator, in registers, in the exp2 domain.
//
// A thread of an m64nNk16 wgmma holds, for its two rows (r, r + 8), N/4 values
// each: flat accumulator index v belongs to row half (v >> 1) & 1, column
// (v / 4) * 8 + (lane % 4) * 2 + v % 2. The four threads of a quad share the
// rows, so row reductions are two xor-shuffles.
#pragma once
#include <cute/tensor.hpp>

namespace pagedattn {

__device__ __forceinline__ float fast_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// Both row halves' quad maxima at once: the shuffles of the two rows are
// independent, and issued as one block they overlap their latencies (one
// row after the other, the four dependent shuffle round trips were ~5% of the
// main loop's warp samples).
template <int kLaneMask>
__device__ __forceinline__ void shfl_xor2(const float (&x)[2], float (&y)[2]) {
  asm("shfl.sync.bfly.b32 %0, %2, %4, 0x1f, 0xffffffff;\n\t"
      "shfl.sync.bfly.b32 %1, %3, %4, 0x1f, 0xffffffff;"
      : "=f"(y[0]), "=f"(y[1])
      : "f"(x[0]), "f"(x[1]), "n"(kLaneMask));
}
__device__ __forceinline__ void quad_max2(float (&x)[2]) {
  float y[2];
  shfl_xor2<1>(x, y);
  x[0] = fmaxf(x[0], y[0]);
  x[1] = fmaxf(x[1], y[1]);
  shfl_xor2<2>(x, y);
  x[0] = fmaxf(x[0], y[0]);
  x[1] = fmaxf(x[1], y[1]);
}
__device__ __forceinline__ float quad_sum(float x) {
  x += __shfl_xor_sync(0xffffffffu, x, 1);
  return x + __shfl_xor_sync(0xffffffffu, x, 2);
}

struct OnlineSoftmax {
  static constexpr float kMaxGrowth = 8.f;  // log2 of the largest probability kept unrescaled

  float row_max[2];  // running max of the scaled (log2-domain) logits
  float row_sum[2];  // this thread's partial sum of exp2(s - row_max)

  __device__ __forceinline__ OnlineSoftmax() {
    row_max[0] = row_max[1] = -INFINITY;
    row_sum[0] = row_sum[1] = 0.f;
  }

  // One key block. S holds raw logits q.k. `limit[h]` (used when kMasked) is
  // the last key row half h sees, minus this thread's first column of the
  // block. Replaces S by the unnormalised probabilities exp2(s * scale - max),
  // updates the running max and sum, and returns in `corr` the factor the O
  // accumulator must be multiplied by before P V is added (the caller applies
  // it when O is not in use by an in-flight wgmma).
  //
  // Per element of an unmasked block this is one max, one FFMA, one exp2 and
  // one add: the scale is folded into the FFMA, so the row max is taken on
  // raw scores. That needs scale >= 0 (+0 or -0): for a negative scale the
  // producer stores Q negated and the consumers pass |scale|
  // (GatherLoader::load_q). Masked keys take the sentinel -inf, which loses
  // the max. Their probability is then 0 in one of two ways (kSecondSelect):
  //  - true: set to 0 after the exp2, by a second select on the mask (the
  //    compiler keeps the 64 predicates in bit masks between the two);
  //  - false: by the sentinel itself, fmaf(sentinel, scale, finite) = -inf,
  //    exp2 = 0, with no second select. Scale 0 would give NaN there, so a
  //    masked block then computes the same softmax as scale 1 over logits
  //    0 * s: visible keys weigh exp2(0 - max) as in the unmasked blocks.
  // Both are exact for every scale; which is faster depends on the tile
  // (KernelTraits::kMaskSecondSelect, measured).
  template <bool kMasked, bool kSecondSelect, class TS>
  __device__ __forceinline__ void step(TS& tSrS, float scale, const int (&limit)[2], float (&corr)[2]) {
    constexpr int N = decltype(cute::size(std::declval<TS&>()))::value;
    static_assert(N % 16 == 0, "whole 16-column blocks");
    auto visible = [&](int v) { return (v / 4) * 8 + (v % 2) <= limit[(v >> 1) & 1]; };
    constexpr float sentinel = -INFINITY;
    if constexpr (kMasked && !kSecondSelect) {
      // keep is 1 (s * 1 == s, NaN and inf included) unless scale is 0.
      const float keep = scale == 0.f ? 0.f : 1.f;
      scale = scale == 0.f ? 1.f : scale;
      CUTLASS_PRAGMA_UNROLL
      for (int v = 0; v < N; ++v) tSrS(v) = visible(v) ? tSrS(v) * keep : sentinel;
    }
    if constexpr (kMasked && kSecondSelect) {
      CUTLASS_PRAGMA_UNROLL
      for (int v = 0; v < N; ++v) tSrS(v) = visible(v) ? tSrS(v) : sentinel;
    }
    // 4 independent partial maxima per row half: short dependency chains.
    float mx[2][4];
    CUTLASS_PRAGMA_UNROLL
    for (int h = 0; h < 2; ++h)
      CUTLASS_PRAGMA_UNROLL
      for (int a = 0; a < 4; ++a) mx[h][a] = sentinel;
    CUTLASS_PRAGMA_UNROLL
    for (int v = 0; v < N; ++v) {
      float& m = mx[(v >> 1) & 1][(v / 4) % 4 / 2 * 2 + (v & 1)];
      m = fmaxf(m, tSrS(v));
    }
    float m2[2];
    CUTLASS_PRAGMA_UNROLL
    for (int h = 0; h < 2; ++h) m2[h] = fmaxf(fmaxf(mx[h][0], mx[h][1]), fmaxf(mx[h][2], mx[h][3]));
    quad_max2(m2);
    float neg_base[2];
    CUTLASS_PRAGMA_UNROLL
    for (int h = 0; h < 2; ++h) {
      const float m = m2[h];
      // The block's max of the scaled scores; -inf when no key of it is
      // visible to the row (m is then the sentinel).
      const float block_max = m == sentinel ? -INFINITY : m * scale;
      // The reference max moves only when the block raises it by more than
      // kMaxGrowth: below that the probabilities stay <= 2^kMaxGrowth (exact
      // in fp32, and bf16's relative precision does not depend on the
      // magnitude), and O keeps its scale, so the rescale is skipped. The
      // result is the same formula with another reference (lse = max +
      // log2 l uses the same max). The first block always sets it (the
      // difference is +inf or NaN).
      const float new_max = fmaxf(row_max[h], block_max);
      if (!(new_max - row_max[h] <= kMaxGrowth)) {
        // A row that has seen no key yet keeps max -inf: subtract 0 instead
        // so exp2 gives 0, not NaN.
        const float base = new_max == -INFINITY ? 0.f : new_max;
        corr[h] = fast_exp2(row_max[h] - base);
        row_max[h] = new_max;
      } else {
        corr[h] = 1.f;
      }
      neg_base[h] = row_max[h] == -INFINITY ? 0.f : -row_max[h];
    }
    float sum[2][4] = {{0.f, 0.f, 0.f, 0.f}, {0.f, 0.f, 0.f, 0.f}};
    CUTLASS_PRAGMA_UNROLL
    for (int v = 0; v < N; ++v) {
      float e = fast_exp2(fmaf(tSrS(v), scale, neg_base[(v >> 1) & 1]));
      if constexpr (kMasked && kSecondSelect) e = visible(v) ? e : 0.f;
      tSrS(v) = e;
      sum[(v >> 1) & 1][(v / 4) % 4 / 2 * 2 + (v & 1)] += e;
    }
    CUTLASS_PRAGMA_UNROLL
    for (int h = 0; h < 2; ++h)
      row_sum[h] = row_sum[h] * corr[h] + ((sum[h][0] + sum[h][1]) + (sum[h][2] + sum[h][3]));
  }

  // An unmasked block after the first, without its max: the exponentials are
  // taken against the current reference right away. They are step()'s own
  // whenever step() would keep the reference, i.e. when no probability
  // exceeds 2^kMaxGrowth, which this thread's partial row sums below that
  // prove for its elements (each is at most the sum; inf and NaN fail, and
  // so does a row with no reference yet, whose exponentials are +inf). It
  // saves step()'s max (a max per element, the tree and the quad shuffles),
  // which sits on the softmax's dependent chain before the first exp2. The
  // caller commits with accept() when the whole warpgroup passed, else tries
  // rebase(), and else recomputes S and runs step().
  template <class TS>
  __device__ __forceinline__ bool exp_at_reference(TS& tSrS, float scale, float (&part)[2]) const {
    constexpr int N = decltype(cute::size(std::declval<TS&>()))::value;
    const float neg_base[2] = {-row_max[0], -row_max[1]};
    float sum[2][4] = {{0.f, 0.f, 0.f, 0.f}, {0.f, 0.f, 0.f, 0.f}};
    CUTLASS_PRAGMA_UNROLL
    for (int v = 0; v < N; ++v) {
      const float e = fast_exp2(fmaf(tSrS(v), scale, neg_base[(v >> 1) & 1]));
      tSrS(v) = e;
      sum[(v >> 1) & 1][(v / 4) % 4 / 2 * 2 + (v & 1)] += e;
    }
    CUTLASS_PRAGMA_UNROLL
    for (int h = 0; h < 2; ++h) part[h] = (sum[h][0] + sum[h][1]) + (sum[h][2] + sum[h][3]);
    constexpr float kLimit = 1 << static_cast<int>(kMaxGrowth);
    return part[0] < kLimit && part[1] < kLimit;
  }

  // After exp_at_reference() failed somewhere in the warpgroup: moves each
  // row's reference up by k, the exponent of the power of two just above its
  // largest exponential (k = 0 when that is at most 1), and rescales the
  // block's exponentials by exp2(old - new reference) instead of recomputing
  // them, so that the next blocks pass again. (A reference taken from a
  // diagonal block where the row sees one key is often below the row's
  // logits; left there, as step() leaves it for a growth up to kMaxGrowth,
  // it would fail every later block.) The factor is computed from the two
  // stored references, so everything stays relative to the new one, whatever
  // the rounding of old + k. rebase_possible() is false where an exponential
  // overflowed, is not below 2^64, or is NaN; the caller then recomputes S.
  template <class TS>
  __device__ __forceinline__ static bool rebase_possible(const TS& tSrS, const float (&part)[2], float (&mx)[2]) {
    constexpr int N = decltype(cute::size(std::declval<TS&>()))::value;
    mx[0] = mx[1] = 0.f;
    CUTLASS_PRAGMA_UNROLL
    for (int v = 0; v < N; ++v) mx[(v >> 1) & 1] = fmaxf(mx[(v >> 1) & 1], tSrS(v));
    quad_max2(mx);
    constexpr float kMaxExp = 18446744073709551616.f;  // 2^64
    // part >= each exponential, and NaN if one is (fmaxf drops NaN).
    return part[0] < kMaxExp && part[1] < kMaxExp;
  }
  template <class TS>
  __device__ __forceinline__ void rebase(TS& tSrS, float (&part)[2], const float (&mx)[2], float (&corr)[2]) {
    constexpr int N = decltype(cute::size(std::declval<TS&>()))::value;
    bool moved = false;
    CUTLASS_PRAGMA_UNROLL
    for (int h = 0; h < 2; ++h) {
      corr[h] = 1.f;
      if (mx[h] > 1.f) {  // 2^(k-1) <= mx < 2^k, mx a normal float
        const float new_max = row_max[h] + static_cast<float>((__float_as_int(mx[h]) >> 23) - 126);
        corr[h] = fast_exp2(row_max[h] - new_max);
        row_max[h] = new_max;
        part[h] *= corr[h];
        moved = true;
      }
    }
    if (moved) {
      CUTLASS_PRAGMA_UNROLL
      for (int v = 0; v < N; ++v) tSrS(v) *= corr[(v >> 1) & 1];
    }
  }
  // Commits a block taken at the reference (corr = 1, or rebase()'s).
  __device__ __forceinline__ void accept(const float (&part)[2], const float (&corr)[2]) {
    CUTLASS_PRAGMA_UNROLL
    for (int h = 0; h < 2; ++h) row_sum[h] = row_sum[h] * corr[h] + part[h];
  }

  // O *= corr per row. Skipped (exactly: the factors are all 1) when no row
  // of the warp saw its max change, the common case after the first blocks.
  template <class TO>
  __device__ __forceinline__ static void rescale(TO& tOrO, const float (&corr)[2]) {
    if (!__any_sync(0xffffffffu, corr[0] != 1.f || corr[1] != 1.f)) return;
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
