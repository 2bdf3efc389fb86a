// Split-KV merge inside the launch. Every chunk of a split tile writes its
// normalised partial output O_c (fp32) and lse L_c to its merge slot in the
// workspace; a semaphore per tile and consumer warpgroup counts the chunks
// done, and the warpgroup whose chunk completes the count merges all of them
// in chunk order:
//     O = sum_c 2^(L_c - L) O_c,  L = log2 sum_c 2^L_c,
// so the result has the same bits whichever CTA finishes last. The merger
// resets the semaphore, so the workspace is ready for the next call.
//
// Two layouts, chosen per tile and warpgroup by its real rows (all chunks
// of a tile agree):
//  - by fragments (more than kRowMergeMaxRows real rows, scheduler.cuh):
//    the 128 threads' accumulator fragments as float4 [16][128] (each warp
//    store is 512 contiguous bytes) and their two rows' lse as float2
//    [128]; every thread merges its own fragment, 16 loads in flight, one
//    chunk a round (two chunks: the other's, beside this one's registers;
//    warps whose rows are all padding skip both);
//  - by rows (a few query rows over a long key range: a decode-like call,
//    which the split cuts into up to 64 chunks): only the real rows, as
//    float [64][128] and lse float [64] (of the fragments' 256); a warp
//    merges a row at a time, each lane 4 columns (8 chunks in flight, by
//    cp.async through shared memory), the max and the lse's sum through a
//    fixed shuffle tree, into the epilogue's staging buffer. Its rounds
//    follow the real rows, not the tile's 64.
// Calls of one wave (every unit its CTA's first: all chunks of a tile run
// at once) whose longest tile has kSpreadMergeMinChunks chunks or more take
// neither: every chunk writes its real rows as by rows and then helps merge
// the tile (spread_merge below), so that one SM does not read every
// chunk's partial alone.
#pragma once
#include "attn/kernel_traits.cuh"
#include "attn/epilogue.cuh"

namespace pagedattn {

template <class T>
struct SplitMerge {
  static constexpr int kVecs = 16;  // float4 per thread: 64 accumulator values

  // Rows of the tile's warpgroup cw that are real (0..64).
  __device__ __forceinline__ static int live_rows(const WorkUnit& w, int cw) {
    return min(max(w.q_len * kGroup - w.m_block * T::kBlockM - cw * 64, 0), 64);
  }
  // m192 (three warpgroups, 152 registers a consumer thread) merges by
  // fragments only: the second path spilled its per-unit values.
  // The merge by rows walks a warp's rows one after another, each about
  // two L2 trips for the lse and one per kChunksInFlight chunks; by
  // fragments, about one trip a chunk. A decode-like tile (a sequence of
  // at most kRowMergeMaxRows rows, up to kMaxChunks chunks) and a warp of
  // one row stay by rows; the tail warpgroup of a longer sequence (5-16
  // real rows, at most kMaxChunksByFragments chunks) takes the cheaper.
  // Thirty-ninth session: a 13-query sequence's 14-row tail by rows cost
  // decode-like calls of 3-6 chunks a tile 3-4 us (half of such calls
  // 10-21% slower than their finest split).
  __device__ __forceinline__ static bool by_rows(const WorkUnit& w, int cw) {
    const int live = live_rows(w, cw), n = w.n_chunks;
    if (T::kConsumerWGs > 2 || live > kRowMergeMaxRows) return false;
    if (w.q_len * kGroup <= kRowMergeMaxRows || live <= 4) return true;
    return n >= (live + 3) / 4 * (2 + (n + 7) / 8);
  }

  __device__ __forceinline__ static float4* o_ptr(const Params& p, int slot, int cw, int t) {
    return reinterpret_cast<float4*>(p.ws_partial_o) +
           ((long long)slot * T::kConsumerWGs + cw) * (kVecs * kWarpgroupThreads) + t;
  }
  __device__ __forceinline__ static float2* lse_ptr(const Params& p, int slot, int cw, int t) {
    return reinterpret_cast<float2*>(p.ws_partial_lse) + ((long long)slot * T::kConsumerWGs + cw) * kWarpgroupThreads + t;
  }

  // This chunk's normalised output and lse to its slot (L2 only: the merger
  // runs on another SM).
  template <class TO>
  __device__ __forceinline__ static void store_partial(const Params& p, const WorkUnit& w, int cw, int t,
                                                       const TO& tOrO, const float (&lse)[2]) {
    static_assert(decltype(cute::size(tOrO))::value == 4 * kVecs, "64 accumulator values per thread");
    if (!warp_has_rows(w, cw, t)) return;  // no real row: nothing to merge
    float4* o = o_ptr(p, w.slot, cw, t);
    CUTLASS_PRAGMA_UNROLL
    for (int i = 0; i < kVecs; ++i)
      __stcg(o + i * kWarpgroupThreads, make_float4(tOrO(4 * i), tOrO(4 * i + 1), tOrO(4 * i + 2), tOrO(4 * i + 3)));
    __stcg(lse_ptr(p, w.slot, cw, t), make_float2(lse[0], lse[1]));
  }

  __device__ __forceinline__ static float* row_o_ptr(const Params& p, int slot, int cw, int row) {
    return reinterpret_cast<float*>(p.ws_partial_o) + (((long long)slot * T::kConsumerWGs + cw) * 64 + row) * kHeadDim;
  }
  // The same 256 floats a slot and warpgroup as lse_ptr's float2 [128]: a
  // tile's warpgroups may take different layouts, side by side.
  __device__ __forceinline__ static float* row_lse_ptr(const Params& p, int slot, int cw, int row) {
    return reinterpret_cast<float*>(p.ws_partial_lse) + ((long long)slot * T::kConsumerWGs + cw) * 256 + row;
  }

  // By rows: this chunk's normalised output and lse, its real rows, to its
  // slot (L2 only: the merger runs on another SM). tOcO: the accumulator's
  // coordinates in the tile (v = c + 2h + 4j is element (row0 + 8h, col0 +
  // 8j + c)).
  template <class TO, class TC>
  __device__ __forceinline__ static void store_partial_rows(const Params& p, const WorkUnit& w, int cw, int t,
                                                       const TO& tOrO, const TC& tOcO, const float (&lse)[2]) {
    static_assert(decltype(cute::size(tOrO))::value == 64, "64 accumulator values per thread");
    const int live = live_rows(w, cw);
    const int row0 = cute::get<0>(tOcO(0)) - cw * 64, col0 = cute::get<1>(tOcO(0));
    CUTLASS_PRAGMA_UNROLL
    for (int h = 0; h < 2; ++h) {
      const int r = row0 + 8 * h;
      if (r < live) {
        float* o = row_o_ptr(p, w.slot, cw, r) + col0;
        CUTLASS_PRAGMA_UNROLL
        for (int j = 0; j < kHeadDim / 8; ++j)
          __stcg(reinterpret_cast<float2*>(o + 8 * j), make_float2(tOrO(4 * j + 2 * h), tOrO(4 * j + 2 * h + 1)));
        if ((t & 3) == 0) __stcg(row_lse_ptr(p, w.slot, cw, r), lse[h]);
      }
    }
  }

  // acc += w * (the 16 bytes at shared address a, as four floats): a
  // chunk's row segment that the merges by rows copied in by cp.async.
  __device__ __forceinline__ static void add_weighted_shared(float4& acc, float w, uint32_t a) {
    float4 x;
    asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(x.x), "=f"(x.y), "=f"(x.z), "=f"(x.w) : "r"(a));
    acc.x += w * x.x;
    acc.y += w * x.y;
    acc.z += w * x.z;
    acc.w += w * x.w;
  }

  // The semaphores' atomics at gpu scope: the add publishes what the
  // warpgroup's barrier ordered before it and acquires what the other
  // chunks published.
  __device__ __forceinline__ static int add_acq_rel(int* a, int v) {
    int old;
    asm volatile("atom.acq_rel.gpu.global.add.s32 %0, [%1], %2;" : "=r"(old) : "l"(a), "r"(v) : "memory");
    return old;
  }
  __device__ __forceinline__ static int load_acquire(const int* a) {
    int v;
    asm volatile("ld.acquire.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(a) : "memory");
    return v;
  }

  // The reference the weights 2^(L - base) take: the max, or 0 where no
  // chunk saw a key (then every weight is 0, not NaN).
  __device__ __forceinline__ static float weight_base(float m) { return m == -INFINITY ? 0.f : m; }
  // A merged row of max m and weight sum l (relative to m): the weights'
  // normaliser (0 where no chunk saw a key; NaN propagates) and the lse.
  __device__ __forceinline__ static float row_inv(float l) { return !(l <= 0.f) ? 1.f / l : 0.f; }
  __device__ __forceinline__ static float row_lse(float m, float l) { return !(l <= 0.f) ? m + __log2f(l) : -INFINITY; }

  // Counts this chunk done. True, in every thread of the warpgroup, when it
  // was the tile's last: the others' partials are then visible to it. One
  // thread's acq_rel atomic after the warpgroup's barrier publishes the
  // warpgroup's partial (release is cumulative over what the barrier
  // ordered before it) and, for the last, orders the other chunks'
  // partials before the merge's reads (which follow the second barrier):
  // one round trip besides the stores' own, none for the reset, which
  // nothing reads before the next launch.
  __device__ __forceinline__ static bool arrive(const Params& p, const WorkUnit& w, int cw, int t, int* flag) {
    named_bar_sync(kWarpgroupThreads, kBarConsumerWG + cw);
    if (t == 0) {
      int* sem = p.ws_sem + (long long)w.sem * T::kSemsPerSlot + cw;
      const bool last = add_acq_rel(sem, 1) == w.n_chunks - 1;
      if (last) asm volatile("st.relaxed.gpu.global.s32 [%0], 0;" ::"l"(sem) : "memory");  // ready for the next call
      *flag = last;
    }
    named_bar_sync(kWarpgroupThreads, kBarConsumerWG + cw);
    return *reinterpret_cast<volatile int*>(flag) != 0;
  }

  // Merges every chunk of the tile into tOrO and lse. Two chunks: this
  // one's from its registers, the other's from its slot, O = w_a O_a + w_b
  // O_b as a product plus a product (commutative: the same bits whichever
  // chunk merges). More: every chunk's from its slot, in chunk order, one
  // chunk a round. A warp none of whose 16 rows is real neither stores
  // (store_partial) nor merges: its values are never stored.
  __device__ __forceinline__ static bool warp_has_rows(const WorkUnit& w, int cw, int t) {
    return 16 * (t / 32) < live_rows(w, cw);
  }
  // m192 (152 registers a consumer thread) takes the loop: the pair's path
  // spilled its values there, even a quarter of the other's loads at once.
  static constexpr bool kPairMerge = T::kConsumerWGs <= 2;
  template <class TO>
  __device__ __forceinline__ static void merge(const Params& p, const WorkUnit& w, int cw, int t, TO& tOrO,
                                               float (&lse)[2]) {
    if (!warp_has_rows(w, cw, t)) return;
    if (kPairMerge && w.n_chunks == 2) {
      const int other = w.slot == w.sem ? w.sem + kNumKvHeads : w.sem;  // the other chunk's unit index
      const float4* o = o_ptr(p, other, cw, t);
      const float2 lc = __ldcg(lse_ptr(p, other, cw, t));
      const float lo[2] = {lc.x, lc.y};
      float wa[2], wb[2];  // this chunk's and the other's weights
      CUTLASS_PRAGMA_UNROLL
      for (int h = 0; h < 2; ++h) {
        const float mx = fmaxf(lse[h], lo[h]);
        const float base = weight_base(mx);
        const float ea = exp2f(lse[h] - base), eb = exp2f(lo[h] - base), l = ea + eb;
        const float inv = row_inv(l);
        wa[h] = ea * inv;
        wb[h] = eb * inv;
        lse[h] = row_lse(mx, l);
      }
      float4 x[kVecs];
      CUTLASS_PRAGMA_UNROLL
      for (int i = 0; i < kVecs; ++i) x[i] = __ldcg(o + i * kWarpgroupThreads);
      CUTLASS_PRAGMA_UNROLL
      for (int i = 0; i < kVecs; ++i) {
        const float xv[4] = {x[i].x, x[i].y, x[i].z, x[i].w};
        CUTLASS_PRAGMA_UNROLL
        for (int e = 0; e < 4; ++e) {
          const int v = 4 * i + e, h = (v >> 1) & 1;  // accumulator value v is in row half h
          tOrO(v) = __fadd_rn(__fmul_rn(tOrO(v), wa[h]), __fmul_rn(xv[e], wb[h]));
        }
      }
      return;
    }
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
        const float base = weight_base(nm);
        a[h] = exp2f(m[h] - base);
        b[h] = exp2f(lv[h] - base);
        l[h] = l[h] * a[h] + b[h];
        m[h] = nm;
      }
      const float4* o = o_ptr(p, slot, cw, t);
      CUTLASS_PRAGMA_UNROLL
      for (int i = 0; i < kVecs; ++i) {
        const float4 x = __ldcg(o + i * kWarpgroupThreads);
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
      inv[h] = row_inv(l[h]);
      lse[h] = row_lse(m[h], l[h]);
    }
    CUTLASS_PRAGMA_UNROLL
    for (int v = 0; v < 4 * kVecs; ++v) tOrO(v) *= inv[(v >> 1) & 1];
  }
  // By rows: merges every chunk of the tile into the warpgroup's rows of the
  // staging buffer at s_stage (bf16, the epilogue's sw128 layout; the unit's
  // Q slot, which its last QK GEMM has finished reading) and stores the
  // rows' lse. A warp takes rows warp, warp + 4, ... (at most 4: 16 rows);
  // each lane loads its 16 bytes of kChunksInFlight chunks' row by cp.async
  // into the warp's own 4 KB of the staging buffer (no registers held, so
  // more chunks in flight than registers allow) and reads back only what it
  // loaded. The results wait in registers until every warp is done with its
  // scratch, which overlaps the staged rows.
  __device__ __forceinline__ static void merge_rows_to_stage(const Params& p, const WorkUnit& w, int cw, int t,
                                                            uint32_t s_stage) {
    static_assert(kRowMergeMaxRows <= 16, "four rows a warp at most");
    constexpr int kChunksInFlight = 8;  // 8 x 512 bytes: the warp's 4 KB
    const int live = live_rows(w, cw), n = w.n_chunks;
    const int warp = t / 32, lane = t % 32;
    const int rows_total = w.q_len * kGroup, m0 = w.m_block * T::kBlockM + cw * 64;
    // Chunk c's unit index is its merge slot, w.sem + kNumKvHeads * c: the
    // chunks' rows lie a fixed stride apart.
    constexpr int kStrideF4 = kNumKvHeads * T::kConsumerWGs * 64 * kHeadDim / 4;  // float4s
    auto slot_of = [&](int c) { return w.sem + kNumKvHeads * c; };
    // The warp's scratch: its 16 rows of the warpgroup's staging rows, 2 KB
    // in each of the two 128-byte column panels; chunk u's row at 512 u.
    const uint32_t scratch0 = s_stage + (cw * 64 + warp * 16) * 128;
    const uint32_t scratch1 = scratch0 + T::kBlockM * 128;
    auto scratch = [&](int u) { return (u < 4 ? scratch0 + u * 512 : scratch1 + (u - 4) * 512) + lane * 16; };
    uint32_t out_lo[4], out_hi[4];
    CUTLASS_PRAGMA_UNROLL
    for (int k = 0; k < 4; ++k) {
      const int r = warp + 4 * k;
      out_lo[k] = out_hi[k] = 0;
      if (r >= live) continue;
      // The rows' max and sum over the chunks' lse, 32 chunks at a time
      // (one group below 33 chunks).
      float mx = -INFINITY, l = 0.f;
#pragma unroll 1
      for (int g0 = 0; g0 < n; g0 += 32) {
        const float lc = g0 + lane < n ? __ldcg(row_lse_ptr(p, slot_of(g0 + lane), cw, r)) : -INFINITY;
        float gm = lc;
        CUTLASS_PRAGMA_UNROLL
        for (int o = 16; o > 0; o >>= 1) gm = fmaxf(gm, __shfl_xor_sync(0xffffffffu, gm, o));
        const float nm = fmaxf(mx, gm), nb = weight_base(nm);
        float gs = exp2f(lc - nb);
        CUTLASS_PRAGMA_UNROLL
        for (int o = 16; o > 0; o >>= 1) gs += __shfl_xor_sync(0xffffffffu, gs, o);
        l = l * exp2f(mx - nb) + gs;
        mx = nm;
      }
      const float base = weight_base(mx);
      float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll 1
      for (int g0 = 0; g0 < n; g0 += 32) {
        // Lane i holds chunk g0 + i's lse (a second load of it, from L2).
        const float lg = g0 + lane < n ? __ldcg(row_lse_ptr(p, slot_of(g0 + lane), cw, r)) : -INFINITY;
        const float4* o = reinterpret_cast<const float4*>(row_o_ptr(p, slot_of(g0), cw, r)) + lane;
        const int ng = min(n - g0, 32);
#pragma unroll 1
        for (int c0 = 0; c0 < ng; c0 += kChunksInFlight) {
          const float4* oc = o + c0 * kStrideF4;
          CUTLASS_PRAGMA_UNROLL
          for (int u = 0; u < kChunksInFlight; ++u)
            if (c0 + u < ng)
              asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(scratch(u)), "l"(oc + u * kStrideF4)
                           : "memory");
          asm volatile("cp.async.wait_all;\n" ::: "memory");
          CUTLASS_PRAGMA_UNROLL
          for (int u = 0; u < kChunksInFlight; ++u) {
            const float wc = exp2f(__shfl_sync(0xffffffffu, lg, (c0 + u) % 32) - base);
            if (c0 + u < ng) {
              add_weighted_shared(acc, wc, scratch(u));
            }
          }
        }
      }
      const float inv = row_inv(l);
      __nv_bfloat162 lo = __floats2bfloat162_rn(acc.x * inv, acc.y * inv);
      __nv_bfloat162 hi = __floats2bfloat162_rn(acc.z * inv, acc.w * inv);
      out_lo[k] = *reinterpret_cast<uint32_t*>(&lo);
      out_hi[k] = *reinterpret_cast<uint32_t*>(&hi);
      if (lane == 0 && m0 + r < rows_total) {
        const int row = m0 + r, token = row / kGroup, head = w.kv_head * kGroup + row % kGroup;
        p.lse[(long long)(w.q_start + token) * kNumQoHeads + head] = row_lse(mx, l);
      }
    }
    named_bar_sync(kWarpgroupThreads, kBarConsumerWG + cw);  // every warp is done with its scratch
    CUTLASS_PRAGMA_UNROLL
    for (int k = 0; k < 4; ++k) {
      const int r = warp + 4 * k;
      if (r >= live) continue;
      // Columns 4 lane .. 4 lane + 3: half of 16-byte chunk lane / 2.
      const uint32_t dst = s_stage + sw128_offset_bytes<T::kBlockM>(cw * 64 + r, lane / 2) + (lane % 2) * 8;
      asm volatile("st.shared.v2.b32 [%0], {%1, %2};" ::"r"(dst), "r"(out_lo[k]), "r"(out_hi[k]));
    }
    named_bar_sync(kWarpgroupThreads, kBarConsumerWG + cw);  // this warpgroup's rows are staged
    // shared -> global: 64 rows x 16 chunks of 16 bytes (rows past the
    // sequence's are not stored).
    copy_out_rows<T, 64 / 8>(p, w, w.m_block * T::kBlockM, cw * 64 + t / 16, t % 16, s_stage);
  }

  // ---------------- spread merge ----------------
  // For calls of one wave (every unit is its CTA's first, so every chunk of
  // a tile is running): a chunk writes its real rows (the rows layout, any
  // number of them), counts itself in the tile's semaphore word, waits
  // until every chunk of the tile has (at most kSpreadWaitCycles) and then
  // helps merge: pieces of the tile's real rows (a row, half a row or a
  // quarter, by the chunk count: merge_pieces) are claimed a few at a time
  // through the same word, so that the merge's loads spread over the
  // chunks' SMs instead of one SM reading every chunk (a 48-row tile of 32
  // chunks is 768 KB). The last chunk to arrive claims until no piece is
  // left, so the merge completes even if no other chunk helps: nothing
  // waits on another CTA being resident. The bits of a row depend only on
  // the chunk count, not on who merges it.
  // The word: arrivals in bits 0-7, departures 8-15, claims from bit 16;
  // the last chunk to depart resets it for the next call.
  static constexpr int kSemArrive = 1, kSemDepart = 1 << 8, kSemClaim = 1 << 16;
  static constexpr long long kSpreadWaitCycles = 60000;  // ~30 us: a chunk late by more is not waited for

  // A call of one wave whose longest tile is cut into kSpreadMergeMinChunks
  // or more chunks (its plan: the longest sequence ranks first), a tile of
  // at most 64: in such a call every split tile's chunks merge it together
  // (measured: where only the tiles of 7+ chunks did, a call whose other
  // tiles had 6 was slower than with none). Of fewer chunks, the last
  // chunk's merge reads no more than a few rounds, while each warp's share
  // of the pieces would be several rows; a forced split may cut more than
  // 64, whose merge stays the last chunk's.
  template <class Plan>
  __device__ __forceinline__ static bool spread(const WorkUnit& w, const Plan& pl) {
    if (T::kConsumerWGs > 2 || pl.n_units > (int)gridDim.x || w.n_chunks > kMaxChunks) return false;
    const SeqShape<T::kBlockM, T::kBlockN> longest{pl.range[0].q_len, pl.range[0].kv_len};
    return ceil_div(longest.max_blocks(), pl.chunk) >= kSpreadMergeMinChunks;
  }

  // Pieces [pc, pc_end) of the warpgroup's rows, one a round; a piece is
  // 4 kL columns of a real row (kL = 32: the whole row, for at most 8
  // chunks; 16: half a row, at most 16; 8: a quarter, at most 64, in two
  // rounds past 32). Lane (s, g) = (lane / kL, lane % kL) copies columns
  // 4g .. 4g + 3 of the piece (16 bytes) of chunks s, s + 32 / kL, ... of a
  // round (8 copies a lane: the round's 256 / kL chunks fill the warp's 4
  // KB of the staging buffer, by cp.async: no registers held while the
  // loads fly), sums them in chunk order, and the 32 / kL partial sums of a
  // column meet in a fixed shuffle tree. Lane c holds chunk c's (and c +
  // 32's) lse and weight. No branch depends on the lane before the
  // shuffles.
  template <int kL>
  __device__ __forceinline__ static void merge_pieces(const Params& p, const WorkUnit& w, int cw, int lane,
                                                      int pc, int pc_end, uint32_t scratch) {
    constexpr int G = kMaxChunks / 32;  // lse groups of 32 chunks
    constexpr int kPerInstr = 32 / kL;  // chunks a copy instruction
    constexpr int kRound = 8 * kPerInstr;  // chunks a round
    constexpr int kSegs = 32 / kL;      // pieces a row
    const int n = w.n_chunks;
    const int m0 = w.m_block * T::kBlockM + cw * 64;
    const int s = lane / kL, g4 = 4 * (lane % kL);
    constexpr int kStride = kNumKvHeads * T::kConsumerWGs * 64 * kHeadDim;  // floats between chunks' rows
    const float* o0 = row_o_ptr(p, w.sem, cw, 0) + g4;
    // Copy i of a round: 512 bytes a warp, the first four in the first
    // column panel's 16 rows, the others in the second's.
    auto slot = [&](int i) { return scratch + (i < 4 ? i * 512 : T::kBlockM * 128 + (i - 4) * 512) + lane * 16; };
#pragma unroll 1
    for (; pc < pc_end; ++pc) {
      const int r = pc / kSegs, c0 = (pc % kSegs) * 4 * kL;
      const float* o = o0 + r * kHeadDim + c0;
      auto copy_round = [&](int b) {
        CUTLASS_PRAGMA_UNROLL
        for (int i = 0; i < 8; ++i)
          if (b + kPerInstr * i + s < n)
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(slot(i)),
                         "l"(o + (long long)(b + kPerInstr * i + s) * kStride)
                         : "memory");
      };
      copy_round(0);  // in flight with the lse loads
      float lc[G];
      CUTLASS_PRAGMA_UNROLL
      for (int g = 0; g < G; ++g)
        lc[g] = 32 * g + lane < n ? __ldcg(row_lse_ptr(p, w.sem + kNumKvHeads * (32 * g + lane), cw, r)) : -INFINITY;
      float mx = -INFINITY, l = 0.f;
      CUTLASS_PRAGMA_UNROLL
      for (int g = 0; g < G; ++g) {
        float gm = lc[g];
        CUTLASS_PRAGMA_UNROLL
        for (int o = 16; o > 0; o >>= 1) gm = fmaxf(gm, __shfl_xor_sync(0xffffffffu, gm, o));
        const float nm = fmaxf(mx, gm), nb = weight_base(nm);
        float gs = exp2f(lc[g] - nb);
        CUTLASS_PRAGMA_UNROLL
        for (int o = 16; o > 0; o >>= 1) gs += __shfl_xor_sync(0xffffffffu, gs, o);
        l = l * exp2f(mx - nb) + gs;
        mx = nm;
      }
      const float base = weight_base(mx);
      float wl[G];  // this lane's chunks' weights
      CUTLASS_PRAGMA_UNROLL
      for (int g = 0; g < G; ++g) wl[g] = exp2f(lc[g] - base);
      float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
      CUTLASS_PRAGMA_UNROLL
      for (int b = 0; b < kMaxChunks; b += kRound) {
        if (b > 0) {
          if (b >= n) break;
          __syncwarp();
          copy_round(b);
        }
        asm volatile("cp.async.wait_all;\n" ::: "memory");
        CUTLASS_PRAGMA_UNROLL
        for (int i = 0; i < 8; ++i) {
          const int c = b + kPerInstr * i + s;  // this lane's chunk (g = c / 32 is the same on every lane)
          const float wc = __shfl_sync(0xffffffffu, wl[(b + kPerInstr * i) / 32], c % 32);
          if (c < n) {
            add_weighted_shared(acc, wc, slot(i));
          }
        }
      }
      CUTLASS_PRAGMA_UNROLL
      for (int o = kL; o < 32; o <<= 1) {
        acc.x += __shfl_xor_sync(0xffffffffu, acc.x, o);
        acc.y += __shfl_xor_sync(0xffffffffu, acc.y, o);
        acc.z += __shfl_xor_sync(0xffffffffu, acc.z, o);
        acc.w += __shfl_xor_sync(0xffffffffu, acc.w, o);
      }
      const float inv = row_inv(l);
      const int row = m0 + r, token = row / kGroup, head = w.kv_head * kGroup + row % kGroup;
      const long long orow = (long long)(w.q_start + token) * kNumQoHeads + head;
      if (s == 0) {
        __nv_bfloat162 lo = __floats2bfloat162_rn(acc.x * inv, acc.y * inv);
        __nv_bfloat162 hi = __floats2bfloat162_rn(acc.z * inv, acc.w * inv);
        *reinterpret_cast<uint2*>(p.out + orow * kHeadDim + c0 + g4) =
            make_uint2(*reinterpret_cast<uint32_t*>(&lo), *reinterpret_cast<uint32_t*>(&hi));
      }
      if (c0 == 0 && lane == 0) p.lse[orow] = row_lse(mx, l);
      __syncwarp();
    }
  }

  // Claims pieces of kL lanes a chunk row until none is left.
  template <int kL>
  __device__ __forceinline__ static void claim_pieces(const Params& p, const WorkUnit& w, int cw, int lane, int live,
                                                      int* sem, uint32_t scratch) {
    const int n = w.n_chunks;
    // About a claim for every warp of the tile's chunks.
    const int units = (32 / kL) * live, per = (units + 4 * n - 1) / (4 * n);
    const int pieces = (units + per - 1) / per;
    for (;;) {
      int piece = 0;
      if (lane == 0) piece = atomicAdd(sem, kSemClaim) / kSemClaim;
      piece = __shfl_sync(0xffffffffu, piece, 0);
      if (piece >= pieces) break;
      merge_pieces<kL>(p, w, cw, lane, piece * per, min(piece * per + per, units), scratch);
    }
  }

  // The spread merge of warpgroup cw's rows of a chunk (spread() holds and
  // the warpgroup has real rows; its partial is written by
  // store_partial_rows).
  // s_stage: the unit's staging buffer (each warp's 4 KB of its
  // warpgroup's rows is the warp's scratch, as in merge_rows_to_stage).
  __device__ __forceinline__ static void spread_merge(const Params& p, const WorkUnit& w, int cw, int t,
                                                     int* flag, uint32_t s_stage) {
    const int n = w.n_chunks, live = live_rows(w, cw);
    const int warp = t / 32, lane = t % 32;
    // The warp's 16 rows of the warpgroup's staging rows: 2 KB in each of
    // the two 128-byte column panels (merge_pieces: a round's first four
    // copies in the first).
    const uint32_t scratch = s_stage + (cw * 64 + warp * 16) * 128;
    int* sem = p.ws_sem + (long long)w.sem * T::kSemsPerSlot + cw;
    named_bar_sync(kWarpgroupThreads, kBarConsumerWG + cw);
    if (t == 0) {  // the arrival publishes the warpgroup's partial (as in arrive)
      bool all = (add_acq_rel(sem, kSemArrive) & 0xff) == n - 1;
      const long long t0 = clock64();
      while (!all && clock64() - t0 < kSpreadWaitCycles) {
        __nanosleep(128);
        all = (load_acquire(sem) & 0xff) == n;
      }
      *flag = all;
    }
    named_bar_sync(kWarpgroupThreads, kBarConsumerWG + cw);
    if (*reinterpret_cast<volatile int*>(flag) != 0) {
      if (n <= 8) claim_pieces<32>(p, w, cw, lane, live, sem, scratch);
      else if (n <= 16) claim_pieces<16>(p, w, cw, lane, live, sem, scratch);
      else claim_pieces<8>(p, w, cw, lane, live, sem, scratch);
    }
    named_bar_sync(kWarpgroupThreads, kBarConsumerWG + cw);  // every warp's claims are done
    if (t == 0) {
      const int old = atomicAdd(sem, kSemDepart);
      if (((old / kSemDepart) & 0xff) == n - 1) atomicExch(sem, 0);  // the last out: ready for the next call
    }
  }
};

}  // namespace pagedattn
