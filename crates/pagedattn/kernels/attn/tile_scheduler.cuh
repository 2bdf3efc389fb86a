// Tile scheduler: which (sequence, row block, kv head) a CTA computes.
// Mirrors src/schedule.rs. Sequence b owns tiles [tile_start(b), tile_start(b+1))
// with tile_start(b) = floor(6 * qo_indptr[b] / kBlockM) + b: enough tiles for its
// 6*q_len packed rows, computable from qo_indptr alone, so the grid size needs
// only total_q and batch (no host synchronisation, graph-replayable with new
// indptr contents).
#pragma once
#include "attn/params.cuh"

namespace pagedattn {

struct WorkTile {
  int seq;          // sequence index b
  int kv_head;      // 0..3
  int m_block;      // row block inside the sequence
  int q_start;      // int is enough: indptrs are int32 (offsets are widened at use)
  int q_len;
  int kv_start;
  int kv_len;
  bool valid;       // false: spare tile or bad sequence: nothing to do
};

template <int kBlockM>
__device__ __forceinline__ long long tile_start(long long qo_start, int b) {
  return (kGroup * qo_start) / kBlockM + b;
}

// Largest b in [0, batch) with tile_start(b) <= t, by a 32-ary search done by
// one warp: one coalesced load of up to 32 indptr entries per step, so a batch
// of 1024 sequences costs two dependent loads.
template <int kBlockM>
__device__ __forceinline__ int find_sequence(const int* __restrict__ qo_indptr, int batch, long long t) {
  int lane = threadIdx.x & 31;
  int lo = 0, hi = batch;  // answer in [lo, hi)
  while (hi - lo > 1) {
    int step = (hi - lo + 31) / 32;
    int idx = lo + lane * step;
    bool pred = false;
    if (idx < hi) pred = tile_start<kBlockM>(__ldg(qo_indptr + idx), idx) <= t;
    unsigned ballot = __ballot_sync(0xffffffffu, pred);
    int last = ballot ? 31 - __clz(ballot) : 0;
    lo = lo + last * step;
    hi = min(lo + step, hi);
  }
  return lo;
}

// Decodes the CTA's tile. Heavier tiles (later row blocks, which see more
// keys) get lower block indices so they start first; the 4 kv heads of a
// tile are adjacent.
template <int kBlockM>
__device__ __forceinline__ WorkTile decode_tile(const Params& p, int linear) {
  WorkTile w;
  w.kv_head = linear % kNumKvHeads;
  long long t = (long long)p.tiles_per_head - 1 - linear / kNumKvHeads;
  w.valid = false;
  w.seq = 0; w.m_block = 0; w.q_start = 0; w.q_len = 0; w.kv_start = 0; w.kv_len = 0;
  if (p.batch <= 0 || t < 0) return w;
  int b = find_sequence<kBlockM>(p.qo_indptr, p.batch, t);
  long long q0 = __ldg(p.qo_indptr + b), q1 = __ldg(p.qo_indptr + b + 1);
  long long k0 = __ldg(p.kv_indptr + b), k1 = __ldg(p.kv_indptr + b + 1);
  w.seq = b;
  long long ts = tile_start<kBlockM>(q0, b);
  // Bad ranges: skip, never index with them (validate_indptrs flags them).
  if (q0 < 0 || q1 < q0 || q1 > p.total_q) return w;
  if (k0 < 0 || k1 < k0 || k1 > p.num_kv_indices) return w;
  long long mb = t - ts;
  if (mb < 0 || mb * kBlockM >= (q1 - q0) * kGroup) return w;  // spare tile
  w.m_block = (int)mb;
  w.q_start = (int)q0; w.q_len = (int)(q1 - q0);
  w.kv_start = (int)k0; w.kv_len = (int)(k1 - k0);
  w.valid = true;
  return w;
}

// Persistent grid: CTA c takes, in round r, linear tile r * G + c for even r
// and r * G + (G - 1 - c) for odd r (G = gridDim.x). Linear tiles run from
// heaviest to lightest, so the serpentine order evens out the work per CTA
// the way the hardware's own heaviest-first dispatch would, without a global
// counter (which would need resetting between launches and would be shared
// by calls on different streams). -1: no tile left for this CTA.
__device__ __forceinline__ long long tile_for_round(const Params& p, int round) {
  const long long g = gridDim.x;
  const long long t = round * g + ((round & 1) ? g - 1 - blockIdx.x : blockIdx.x);
  return t < (long long)p.tiles_per_head * kNumKvHeads ? t : -1;
}

// A tile as the producer hands it to the consumers through shared memory.
struct TileSlot {
  WorkTile w;
  int done;  // no tile left: the consumers exit
};

}  // namespace pagedattn

namespace pagedattn {
// Checks indptr entries [first, first + 32) with one warp and ORs ErrorBits
// into *error_flag. Every CTA checks its own 32 entries; the grid has at least
// `batch` CTAs, so every entry is checked once per call at the cost of two
// loads in a warp that is otherwise waiting for Q.
__device__ __forceinline__ void validate_indptrs(const Params& p, long long first) {
  int lane = threadIdx.x & 31;
  long long i = first + lane;
  int bits = 0;
  if (i <= p.batch) {
    int q = __ldg(p.qo_indptr + i), k = __ldg(p.kv_indptr + i);
    if (q < 0 || q > p.total_q) bits |= kErrBadQoRange;
    if (k < 0 || k > p.num_kv_indices) bits |= kErrBadKvRange;
    if (i == 0 && q != 0) bits |= kErrBadQoRange;
    if (i == 0 && k != 0) bits |= kErrBadKvRange;
    if (i == p.batch && q != p.total_q) bits |= kErrBadQoRange;
    if (i == p.batch && k != p.num_kv_indices) bits |= kErrBadKvRange;
    if (i < p.batch) {
      if (__ldg(p.qo_indptr + i + 1) < q) bits |= kErrBadQoRange;
      if (__ldg(p.kv_indptr + i + 1) < k) bits |= kErrBadKvRange;
    }
  }
  bits = __reduce_or_sync(0xffffffffu, bits);
  if (bits && lane == 0) atomicOr(p.ws_counters + kWsErrorFlag, bits);
}
}  // namespace pagedattn
