// Split-KV merge inside the launch. A split tile's chunks are units of
// consecutive tickets, the last chunk (k-1) the highest, so it usually
// finishes last. Chunks 0 .. k-2 write their normalised partial output O_c
// (fp32) and lse L_c to their merge slots in the workspace and count
// themselves on a semaphore per tile and consumer warpgroup. The last chunk
// polls the count a few times: once all k-1 are in, it merges straight from
// its registers (no partial write, no atomic). Otherwise (bounded: no CTA
// ever waits for another, whether or not it is resident) it joins the count
// like the others, and whichever chunk makes the count k merges. Either way
// the merge computes, in the same order,
//     O = sum_c 2^(L_c - L) O_c,  L = log2 sum_c 2^L_c
// (chunk k-1's term first, then c = 0 .. k-2), from the same fp32 values, so
// the bits never depend on timing. The merger resets the semaphore for the
// next call.
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

  // The last chunk: whether the other k-1 are already in (a few polls;
  // acquire: their partials are then visible). If so, it resets the count.
  __device__ __forceinline__ static bool others_done(const Params& p, const WorkUnit& w, int cw, int t,
                                                     int* flag) {
    if (t == 0) {
      int* sem = sem_ptr(p, w, cw);
      int n = 0;
      for (int poll = 0; poll < kPolls; ++poll) {
        asm volatile("ld.acquire.gpu.global.s32 %0, [%1];" : "=r"(n) : "l"(sem) : "memory");
        if (n == w.n_chunks - 1) break;
        __nanosleep(128);
      }
      const bool done = n == w.n_chunks - 1;
      if (done) *reinterpret_cast<volatile int*>(sem) = 0;  // nobody else touches it in this call
      *flag = done;
    }
    cutlass::arch::NamedBarrier::sync(128, kBarConsumerWG + cw);
    return *reinterpret_cast<volatile int*>(flag) != 0;
  }

  // Counts this chunk done (its partial already stored). True, in every
  // thread of the warpgroup, when it made the count k: it merges, and the
  // others' partials are visible to it.
  __device__ __forceinline__ static bool arrive(const Params& p, const WorkUnit& w, int cw, int t, int* flag) {
    __threadfence();  // this thread's partial reaches L2 before the count does
    cutlass::arch::NamedBarrier::sync(128, kBarConsumerWG + cw);
    if (t == 0) {
      int* sem = sem_ptr(p, w, cw);
      const bool last = atomicAdd(sem, 1) == w.n_chunks - 1;
      if (last) {
        atomicExch(sem, 0);  // ready for the next call
        __threadfence();     // order the count before the partial reads below
      }
      *flag = last;
    }
    cutlass::arch::NamedBarrier::sync(128, kBarConsumerWG + cw);
    return *reinterpret_cast<volatile int*>(flag) != 0;
  }

  // Chunk k-1's partial output and lse from its slot (a merger other than
  // chunk k-1 starts from them, as chunk k-1 starts from its registers).
  template <class TO>
  __device__ __forceinline__ static void load_last(const Params& p, const WorkUnit& w, int cw, int t, TO& tOrO,
                                                   float (&lse)[2]) {
    const int last = w.n_chunks - 1;
    const float4* o = o_ptr(p, slot_of(w, last), cw, t);
    CUTLASS_PRAGMA_UNROLL
    for (int i = 0; i < kVecs; ++i) {
      const float4 x = __ldcg(o + i * 128);
      tOrO(4 * i) = x.x, tOrO(4 * i + 1) = x.y, tOrO(4 * i + 2) = x.z, tOrO(4 * i + 3) = x.w;
    }
    const float2 l = __ldcg(lse_ptr(p, slot_of(w, last), cw, t));
    lse[0] = l.x, lse[1] = l.y;
  }

  // Merges chunks 0 .. k-2 (from their slots) into chunk k-1's output and
  // lse in tOrO / lse: all lse first (one round trip for up to 5 chunks),
  // then the partial outputs, a chunk at a time.
  template <class TO>
  __device__ __forceinline__ static void merge(const Params& p, const WorkUnit& w, int cw, int t, TO& tOrO,
                                               float (&lse)[2]) {
    const int others = w.n_chunks - 1;
    auto lse_of = [&](int c) {  // chunk c's lse (c < others), -inf past the end
      const float2 lc = __ldcg(lse_ptr(p, slot_of(w, min(c, others - 1)), cw, t));
      return c < others ? lc : make_float2(-INFINITY, -INFINITY);
    };
    // Online max and sum over the lse, own first (one round trip for up to 5 chunks).
    float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.f, 0.f};
    auto add_lse = [&](float2 lc) {
      const float lv[2] = {lc.x, lc.y};
      CUTLASS_PRAGMA_UNROLL
      for (int h = 0; h < 2; ++h) {
        const float nm = fmaxf(m[h], lv[h]);
        const float base = nm == -INFINITY ? 0.f : nm;  // no key yet: weights 0, not NaN
        l[h] = l[h] * exp2f(m[h] - base) + exp2f(lv[h] - base);
        m[h] = nm;
      }
    };
    add_lse(make_float2(lse[0], lse[1]));
    for (int c = 0; c < others; c += 4) {
      float2 lc[4];
      CUTLASS_PRAGMA_UNROLL
      for (int i = 0; i < 4; ++i) lc[i] = lse_of(c + i);
      CUTLASS_PRAGMA_UNROLL
      for (int i = 0; i < 4; ++i) add_lse(lc[i]);
    }
    const float base[2] = {m[0] == -INFINITY ? 0.f : m[0], m[1] == -INFINITY ? 0.f : m[1]};
    float L[2], inv_l[2];
    CUTLASS_PRAGMA_UNROLL
    for (int h = 0; h < 2; ++h) {
      const bool any = !(l[h] <= 0.f);  // NaN propagates
      inv_l[h] = any ? 1.f / l[h] : 0.f;
      L[h] = any ? base[h] + __log2f(l[h]) : -INFINITY;
    }
    // Own term: weight 2^(L_own - base) / l.
    {
      const float a[2] = {exp2f(lse[0] - base[0]) * inv_l[0], exp2f(lse[1] - base[1]) * inv_l[1]};
      CUTLASS_PRAGMA_UNROLL
      for (int v = 0; v < 4 * kVecs; ++v) tOrO(v) *= a[(v >> 1) & 1];
    }
    for (int c = 0; c < others; ++c) {
      const float4* o = o_ptr(p, slot_of(w, c), cw, t);
      float4 x[kVecs];
      CUTLASS_PRAGMA_UNROLL
      for (int k = 0; k < kVecs; ++k) x[k] = __ldcg(o + k * 128);
      const float2 lc = lse_of(c);
      const float b[2] = {exp2f(lc.x - base[0]) * inv_l[0], exp2f(lc.y - base[1]) * inv_l[1]};
      CUTLASS_PRAGMA_UNROLL
      for (int k = 0; k < kVecs; ++k) {
        const float xv[4] = {x[k].x, x[k].y, x[k].z, x[k].w};
        CUTLASS_PRAGMA_UNROLL
        for (int e = 0; e < 4; ++e) {
          const int v = 4 * k + e, h = (v >> 1) & 1;  // accumulator value v is in row half h
          // b == 0 where the chunk saw no key (its O is 0 then): skipped, as a NaN-free no-op.
          tOrO(v) = b[h] == 0.f ? tOrO(v) : fmaf(xv[e], b[h], tOrO(v));
        }
      }
    }
    lse[0] = L[0];
    lse[1] = L[1];
  }

 private:
  static constexpr int kPolls = 4;  // the last chunk's polls before it joins the count

  __device__ __forceinline__ static int* sem_ptr(const Params& p, const WorkUnit& w, int cw) {
    return p.ws_sem + (long long)w.sem * 2 + cw;
  }
  // Chunk c's unit index (its merge slot).
  __device__ __forceinline__ static int slot_of(const WorkUnit& w, int c) { return w.sem + kNumKvHeads * c; }
};

}  // namespace pagedattn
