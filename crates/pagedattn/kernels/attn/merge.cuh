// Split-KV merge inside the launch. Every chunk of a split tile writes its
// normalised partial output O_c (fp32) and lse L_c to its merge slot in the
// workspace; a semaphore per tile and consumer warpgroup counts the chunks
// done, and the warpgroup whose chunk completes the count merges all of them
// in chunk order:
//     O = sum_c 2^(L_c - L) O_c,  L = log2 sum_c 2^L_c,
// so the result has the same bits whichever CTA finishes last. The merger
// resets the semaphore, so the workspace is ready for the next call.
//
// Layout (per slot and consumer warpgroup): the 128 threads' accumulator
// fragments as float4 [16][128] (each warp store is 512 contiguous bytes),
// and their two rows' lse as float2 [128].
#pragma once
#include "attn/kernel_traits.cuh"

namespace pagedattn {

template <class T>
struct SplitMerge {
  static constexpr int kVecs = 16;  // float4 per thread: 64 accumulator values

  __device__ __forceinline__ static float4* o_ptr(const Params& p, int slot, int cw, int t) {
    return reinterpret_cast<float4*>(p.ws_partial_o) +
           ((long long)slot * T::kConsumerWGs + cw) * (kVecs * 128) + t;
  }
  __device__ __forceinline__ static float2* lse_ptr(const Params& p, int slot, int cw, int t) {
    return reinterpret_cast<float2*>(p.ws_partial_lse) + ((long long)slot * T::kConsumerWGs + cw) * 128 + t;
  }

  // This chunk's normalised output and lse to its slot (L2 only: the merger
  // runs on another SM).
  template <class TO>
  __device__ __forceinline__ static void store_partial(const Params& p, const WorkUnit& w, int cw, int t,
                                                       const TO& tOrO, const float (&lse)[2]) {
    static_assert(decltype(cute::size(tOrO))::value == 4 * kVecs, "64 accumulator values per thread");
    float4* o = o_ptr(p, w.slot, cw, t);
    CUTLASS_PRAGMA_UNROLL
    for (int i = 0; i < kVecs; ++i)
      __stcg(o + i * 128, make_float4(tOrO(4 * i), tOrO(4 * i + 1), tOrO(4 * i + 2), tOrO(4 * i + 3)));
    __stcg(lse_ptr(p, w.slot, cw, t), make_float2(lse[0], lse[1]));
  }

  // Counts this chunk done. True, in every thread of the warpgroup, when it
  // was the tile's last: the others' partials are then visible to it.
  __device__ __forceinline__ static bool arrive(const Params& p, const WorkUnit& w, int cw, int t, int* flag) {
    __threadfence();  // this thread's partial reaches L2 before the count does
    named_bar_sync(128, kBarConsumerWG + cw);
    if (t == 0) {
      int* sem = p.ws_sem + (long long)w.sem * T::kSemsPerSlot + cw;
      const bool last = atomicAdd(sem, 1) == w.n_chunks - 1;
      if (last) {
        atomicExch(sem, 0);  // ready for the next call
        __threadfence();     // order the count before the partial reads below
      }
      *flag = last;
    }
    named_bar_sync(128, kBarConsumerWG + cw);
    return *reinterpret_cast<volatile int*>(flag) != 0;
  }

  // Merges every chunk of the tile (this one's from its slot too) into tOrO
  // and lse, in chunk order.
  template <class TO>
  __device__ __forceinline__ static void merge(const Params& p, const WorkUnit& w, int cw, int t, TO& tOrO,
                                               float (&lse)[2]) {
    float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.f, 0.f};
    CUTLASS_PRAGMA_UNROLL
    for (int v = 0; v < 4 * kVecs; ++v) tOrO(v) = 0.f;
    for (int c = 0; c < w.n_chunks; ++c) {
      const int slot = w.sem + kNumKvHeads * c;  // chunk c's unit index
      const float2 lc = __ldcg(lse_ptr(p, slot, cw, t));
      const float lv[2] = {lc.x, lc.y};
      float a[2], b[2];
      CUTLASS_PRAGMA_UNROLL
      for (int h = 0; h < 2; ++h) {
        const float nm = fmaxf(m[h], lv[h]);
        const float base = nm == -INFINITY ? 0.f : nm;  // no key yet: weights 0, not NaN
        a[h] = exp2f(m[h] - base);
        b[h] = exp2f(lv[h] - base);
        l[h] = l[h] * a[h] + b[h];
        m[h] = nm;
      }
      const float4* o = o_ptr(p, slot, cw, t);
      CUTLASS_PRAGMA_UNROLL
      for (int i = 0; i < kVecs; ++i) {
        const float4 x = __ldcg(o + i * 128);
        const float xv[4] = {x.x, x.y, x.z, x.w};
        CUTLASS_PRAGMA_UNROLL
        for (int e = 0; e < 4; ++e) {
          const int v = 4 * i + e, h = (v >> 1) & 1;  // accumulator value v is in row half h
          tOrO(v) = tOrO(v) * a[h] + xv[e] * b[h];
        }
      }
    }
    float inv[2];
    CUTLASS_PRAGMA_UNROLL
    for (int h = 0; h < 2; ++h) {
      const bool any = !(l[h] <= 0.f);  // NaN propagates
      inv[h] = any ? 1.f / l[h] : 0.f;
      lse[h] = any ? m[h] + __log2f(l[h]) : -INFINITY;
    }
    CUTLASS_PRAGMA_UNROLL
    for (int v = 0; v < 4 * kVecs; ++v) tOrO(v) *= inv[(v >> 1) & 1];
  }
};

}  // namespace pagedattn
