// Tile scheduler: the call's work units, derived on the device from the
// indptrs at the start of every CTA (no host synchronisation; the grid is one
// wave of resident CTAs, so a captured graph replays with any indptr
// contents), and handed out by a ticket counter in the workspace.
//
// Bit-exact mirror of src/units.rs (tests there check the closed forms and
// that every key block of every tile is covered exactly once).
//
// A tile is kBlockM packed rows of one sequence and kv head (packed row r is
// token r / 6, query head kv_head * 6 + r % 6). Tile m sees n(m) key blocks;
// n is nondecreasing in m (causal, bottom-right aligned). A tile longer than
// the split size C is cut into ceil(n / C) chunks of consecutive key blocks,
// computed by different CTAs and merged by the last to finish
// (attn/merge.cuh). Order, heaviest first: the chunks of all split tiles,
// then the unsplit tiles; within each phase sequences by decreasing key
// blocks, a sequence's tiles from the last down, the 4 kv heads adjacent.
#pragma once
#include <climits>
#include <cstddef>
#include <cstdint>
#include "attn/params.cuh"
#include "attn/warp_roles.cuh"

namespace pagedattn {

constexpr int kSortMaxBatch = 256;        // units::SORT_MAX_BATCH
constexpr int kWarpPlanMaxBatch = 32;     // units::WARP_PLAN_MAX_BATCH: one warp builds the plan
constexpr int kMinChunkKeys = 512;        // units::MIN_CHUNK_KEYS: a chunk's merge costs about this much
constexpr int kOneWaveMinChunkKeys = 256;  // units::ONE_WAVE_MIN_CHUNK_KEYS: chunks of a call of one wave
constexpr int kMaxChunks = 64;            // units::MAX_CHUNKS: chunks per tile at most (automatic split)
constexpr int kMaxChunksByFragments = 32;  // units::MAX_CHUNKS_BY_FRAGMENTS: the same where a tile is
                                           // merged by fragments (a chunk per round)
constexpr int kRowMergeMaxRows = 16;       // units::ROW_MERGE_MAX_ROWS: merged by rows up to this many
constexpr int kNoSplit = INT_MAX;         // split size meaning "nothing is split"

enum UnitState : int {
  kUnitWork = 0,  // compute it
  kUnitSkip = 1,  // spare tile or bad sequence: take the next ticket
  kUnitDone = 2,  // no units left: the CTA's roles exit
};

// One work unit, as the producer hands it to the consumers.
struct WorkUnit {
  int state;
  int seq, kv_head, m_block;
  int q_start, q_len, kv_start, kv_len;  // int: indptrs are int32
  int blk_lo, blk_hi;                    // key blocks of the tile this unit computes
  int chunk, n_chunks;                   // n_chunks > 1: a chunk of a split tile
  int slot;                              // merge slot of this chunk (its unit index; in the
                                         // kernels that alternate, every unit's: alternating_block)
  int sem;                               // merge semaphore slot (the unit index of chunk 0)
};

// Key block of step `it` of a unit in the kernels that alternate
// (kAlternateWaves: the persistent m128d, which the long rows take, and
// m192): down from the diagonal block, or up in every other wave of the
// grid's size, so that each wave starts on the keys the previous one read
// last. With every
// wave walking down, a wave's first blocks were those the L2 held longest,
// and once the four kv heads' K/V outgrow it (32768 keys: 64 MB) every wave
// read them from DRAM again (1.58 GB a call against 0.27 of Q, K and V).
// The wave is the unit index's (slot's) quotient by the grid: a function of
// the unit alone, so the bits do not depend on which CTA ran it. The other
// kernels keep `w.blk_hi - 1 - it` written at each call site, which leaves
// their code as it was (the same SASS).
__device__ __forceinline__ int alternating_block(const WorkUnit& w, int it) {
  return ((w.slot / (int)gridDim.x) & 1) ? w.blk_lo + it : w.blk_hi - 1 - it;
}

// Integer division rounding toward -inf / +inf (b > 0, any sign of a). The
// plan's quotients all fit in int32 (6 * total_q < 2^31 is checked on the
// host); only sums of products need 64 bits.
__device__ __forceinline__ int floor_div(int a, int b) {
  const int q = a / b;
  return (a % b < 0) ? q - 1 : q;
}
__device__ __forceinline__ int ceil_div(int a, int b) { return -floor_div(-a, b); }

// sum_{i < n} clamp(a * i + c, 0, h) for a >= 1, h >= 0 (a * n + c fits int32).
__device__ __forceinline__ long long sum_clamped(int a, int c, int n, int h) {
  if (n <= 0 || h <= 0) return 0;
  const int i_lo = c > 0 ? 0 : min(floor_div(-c, a) + 1, n);
  const int i_hi = max(i_lo, min(ceil_div(h - c, a), n));
  const long long cnt = i_hi - i_lo;
  return (long long)a * (((long long)i_lo + i_hi - 1) * cnt / 2) + (long long)c * cnt +
         (long long)h * (n - i_hi);
}

// Key-block counts of one sequence's tiles, in closed form (units::SeqShape).
template <int kBM, int kBN>
struct SeqShape {
  int q_len, kv_len;
  static constexpr int kSlope = kGroup * kBN / kBM;  // tiles per key block
  static_assert(kGroup * kBN % kBM == 0, "a key block must start on a whole tile");
  __device__ __forceinline__ int tiles() const { return (kGroup * q_len + kBM - 1) / kBM; }
  __device__ __forceinline__ int max_blocks() const { return q_len == 0 ? 0 : (kv_len + kBN - 1) / kBN; }
  __device__ __forceinline__ int blocks(int m) const {
    const int last_row = min((m + 1) * kBM, kGroup * q_len) - 1;
    const int max_key = min(kv_len - 1, last_row / kGroup + kv_len - q_len);
    return max_key >= 0 ? max_key / kBN + 1 : 0;
  }
  __device__ __forceinline__ int c0() const { return ceil_div(1 - kGroup * (kv_len - q_len), kBM) - 1; }
  // First tile that sees key block j (j < max_blocks()).
  __device__ __forceinline__ int first_tile(int j) const { return min(max(kSlope * j + c0(), 0), tiles() - 1); }
  __device__ __forceinline__ long long total_blocks() const {
    const int t = tiles(), nb = max_blocks();
    if (t == 0 || nb == 0) return 0;
    return (long long)nb * t - sum_clamped(kSlope, c0(), nb, t - 1);
  }
  // Tiles 0 .. unsplit(c) have at most c key blocks.
  __device__ __forceinline__ int unsplit(int c) const { return c >= max_blocks() ? tiles() : first_tile(c); }
  // Chunks of the split tiles, ceil(n / c) each.
  __device__ __forceinline__ long long split_chunks(int c) const {
    const int t = tiles(), nb = max_blocks();
    if (c >= nb) return 0;
    const int s = first_tile(c), t_max = (nb - 1) / c, cc = c0();
    const long long all = sum_clamped(kSlope * c, cc, t_max + 1, t - 1);
    return (long long)(t - s) + (long long)t_max * t - (all - min(max(cc, 0), t - 1));
  }
};

// A sequence's range as the kernel trusts it: a bad range counts as empty
// (validate_indptrs raises the error flag for it).
struct SeqRange {
  int q_start, q_len, kv_start, kv_len;
};
__device__ __forceinline__ SeqRange load_seq(const Params& p, int b) {
  const long long q0 = __ldg(p.qo_indptr + b), q1 = __ldg(p.qo_indptr + b + 1);
  const long long k0 = __ldg(p.kv_indptr + b), k1 = __ldg(p.kv_indptr + b + 1);
  SeqRange s{0, 0, 0, 0};
  if (q0 < 0 || q1 < q0 || q1 > p.total_q || k0 < 0 || k1 < k0 || k1 > p.num_kv_indices) return s;
  s.q_start = (int)q0;
  s.q_len = (int)(q1 - q0);
  s.kv_start = (int)k0;
  s.kv_len = (int)(k1 - k0);
  return s;
}

// The plan in shared memory (batch <= kMaxBatch), indexed by rank (the
// sequences' order in the unit list). Everything before `red` is also the
// layout of a plan made on the host (units::PlanImage: the same offsets,
// each array 16-byte aligned), which the kernel copies instead of building.
template <int kMaxBatch>
struct alignas(16) PlanStorage {
  static constexpr int kMax = kMaxBatch;
  static constexpr int kScanLen = (kMaxBatch + 1 + 3) / 4 * 4;  // units::PlanImageLayout
  static constexpr int kSeqLen = (kMaxBatch + 3) / 4 * 4;
  int chunk;                     // split size C in key blocks (kNoSplit: none)
  int n_split;                   // units of split tiles (4 per chunk)
  int n_units;                   // all units
  int planned;                   // 0: fallback order (batch > kMaxBatch)
  int pre_split[kScanLen];       // exclusive prefix of split chunks (per kv head)
  int pre_tiles[kScanLen];       // exclusive prefix of unsplit tiles (per kv head)
  int unsplit[kSeqLen];          // unsplit tiles of the sequence
  SeqRange range[kMaxBatch];     // the sequence's rows and keys
  long long red[16];             // block reductions, one per warp (not in the host image)
};
// Per-sequence scratch while the plan is built (aliases the K/V ring).
template <int kMaxBatch>
constexpr int plan_scratch_ints() { return 6 * kMaxBatch; }

// No plan: the fixed tile order (set by the warp that decodes the units).
template <class Plan>
__device__ __forceinline__ void set_fixed_order(const Params& p, Plan& pl) {
  if ((threadIdx.x & 31) == 0) {
    pl.planned = 0;
    pl.n_split = 0;
    pl.chunk = kNoSplit;
    pl.n_units = p.batch > 0 ? p.tiles_per_head * kNumKvHeads : 0;
  }
  __syncwarp();
}

__device__ __forceinline__ long long warp_sum(long long x) {
  CUTLASS_PRAGMA_UNROLL
  for (int o = 16; o > 0; o >>= 1) x += __shfl_xor_sync(0xffffffffu, x, o);
  return x;
}

template <int kThreads>
__device__ __forceinline__ long long block_sum(long long x, long long* red) {
  CUTLASS_PRAGMA_UNROLL
  for (int o = 16; o > 0; o >>= 1) x += __shfl_xor_sync(0xffffffffu, x, o);
  __syncthreads();  // red[] free (earlier sums read)
  if ((threadIdx.x & 31) == 0) red[threadIdx.x / 32] = x;
  __syncthreads();
  long long s = 0;
  for (int w = 0; w < kThreads / 32; ++w) s += red[w];
  return s;
}

template <int kThreads>
__device__ __forceinline__ long long block_max(long long x, long long* red) {
  CUTLASS_PRAGMA_UNROLL
  for (int o = 16; o > 0; o >>= 1) x = max(x, __shfl_xor_sync(0xffffffffu, x, o));
  __syncthreads();
  if ((threadIdx.x & 31) == 0) red[threadIdx.x / 32] = x;
  __syncthreads();
  long long s = 0;
  for (int w = 0; w < kThreads / 32; ++w) s = max(s, red[w]);
  return s;
}

// The automatic split (units::auto_chunk, the same integer arithmetic): of
// the candidates, the longest tile cut into split_candidate(i) chunks of at
// least 2 * kMinChunkKeys keys (kMinChunkKeys, and up to kMaxChunks
// whatever the rows, where the spread merge takes the call: one wave, the
// longest tile in kSpreadMinChunks or more; kOneWaveMinChunkKeys in any call
// of one wave where fine_split_possible; one block, at most kRowSplitMaxChunks
// and kRowSplitMaxUnits, where row_split_possible) whose split units fit
// the merge slots, the one
// with the least estimated time: the longest unit, or the units per CTA
// rounded up times their mean cost (a unit costs kUnitCostBlocks128 and a
// chunk kChunkCostBlocks128 128-key blocks beyond its own), whichever is
// larger (in a call of one wave, a chunk merged by rows, or shorter than
// kMinChunk in a configuration of at most two consumer warpgroups and not
// taken by the spread merge: kOneWaveChunkCostBlocks128); the
// first of equal estimates wins. A candidate's units (split size c,
// kNoSplit: none) are a sum over the sequences of (split chunks << 32) +
// unsplit tiles, one kv head (seq_units); SplitSearch prices one,
// pick_candidate chooses among them, all at once.
// units::SPLIT_CANDIDATES: 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64 chunks.
constexpr int kNumSplitCandidates = 12;
__device__ __forceinline__ int split_candidate(int i) {
  // From the fifth on, 6 and 8 times powers of two (arithmetic: a table
  // indexed at run time would go to local memory).
  return i < 4 ? i + 1 : ((i & 1) ? 8 : 6) << ((i - 4) >> 1);
}
// units::max_chunks: most chunks per tile for a call whose longest
// sequence has q_max queries (merged by rows: SplitMerge::by_rows).
__device__ __forceinline__ int max_chunks(int q_max) {
  return (long long)q_max * kGroup <= kRowMergeMaxRows ? kMaxChunks : kMaxChunksByFragments;
}
constexpr int kUnitCostBlocks128 = 1;   // units::UNIT_COST_BLOCKS128
constexpr int kChunkCostBlocks128 = 4;  // units::CHUNK_COST_BLOCKS128

constexpr int kSpreadMinChunks = 9;       // units::SPREAD_MIN_CHUNKS: the split's spread candidates
constexpr int kSpreadMergeMinChunks = 7;  // units::SPREAD_MERGE_MIN_CHUNKS: SplitMerge::spread (the longest tile)

// A chunk of a call of one wave merged by rows, or shorter than kMinChunk
// (kBM <= 128, not the spread merge's; units::ONE_WAVE_CHUNK_COST_BLOCKS128).
constexpr int kOneWaveChunkCostBlocks128 = 3;

// units::fine_split_possible: a tile of nb_max blocks is longer than a chunk
// of kOneWaveMinChunkKeys and its cost in a call of one wave (640 keys).
template <int kBN>
__device__ __forceinline__ bool fine_split_possible(int nb_max) {
  return nb_max > (kOneWaveMinChunkKeys + kOneWaveChunkCostBlocks128 * 128) / kBN;
}

// units::row_split_possible: the split tiles merge by rows and a tile of
// nb_max blocks is longer than a one-block chunk and its cost.
constexpr int kRowSplitMaxChunks = 32;      // units::ROW_SPLIT_MAX_CHUNKS
constexpr long long kRowSplitMaxUnits = 128;  // units::ROW_SPLIT_MAX_UNITS
template <int kBM, int kBN>
__device__ __forceinline__ bool row_split_possible(int nb_max, int q_max) {
  return kBM <= 128 && (long long)q_max * kGroup <= kRowMergeMaxRows && nb_max > 1 + kOneWaveChunkCostBlocks128 * 128 / kBN;
}

// units::spread_fine_possible: m64, tiles merged by fragments, and one-block
// chunks of the longest tile would be kSpreadMergeMinChunks or more (the
// spread merge's): chunks of one to three blocks, at most kRowSplitMaxUnits
// units, costing kSpreadFineChunkCostBlocks128.
constexpr int kSpreadFineChunkCostBlocks128 = 2;  // units::SPREAD_FINE_CHUNK_COST_BLOCKS128
template <int kBM>
__device__ __forceinline__ bool spread_fine_possible(int nb_max, int q_max) {
  return kBM == 64 && (long long)q_max * kGroup > kRowMergeMaxRows && nb_max >= kSpreadMergeMinChunks;
}

// units::short_fine_possible: m64 tiles merged by fragments, too short for
// chunks of kOneWaveMinChunkKeys (fine_split_possible) but of at least
// kShortFineMinBlocks blocks: chunks of kShortFineMinChunkKeys up to
// kOneWaveMinChunkKeys in a call of one wave, costing
// kShortFineChunkCostBlocks128.
constexpr int kShortFineMinChunkKeys = 192;       // units::SHORT_FINE_MIN_CHUNK_KEYS
constexpr int kShortFineMinBlocks = 8;            // units::SHORT_FINE_MIN_BLOCKS
constexpr int kShortFineChunkCostBlocks128 = 2;   // units::SHORT_FINE_CHUNK_COST_BLOCKS128
template <int kBM, int kBN>
__device__ __forceinline__ bool short_fine_possible(int nb_max, int q_max) {
  return kBM == 64 && (long long)q_max * kGroup > kRowMergeMaxRows && nb_max >= kShortFineMinBlocks &&
         !fine_split_possible<kBN>(nb_max);
}

// What the split search's candidates share (units::auto_chunk): the call's
// shape and the tests that do not depend on the candidate; ends() and
// estimate() are the walk's per-candidate tests and price.
template <int kBM, int kBN>
struct SplitSearch {
  static constexpr int kMinChunk = 2 * kMinChunkKeys / kBN;
  static constexpr int kMinSpreadChunk = kMinChunkKeys / kBN;
  static constexpr int kMinWaveChunk = kOneWaveMinChunkKeys / kBN;
  static constexpr long long o = kUnitCostBlocks128 * 128 / kBN, os_tile = kChunkCostBlocks128 * 128 / kBN;
  static constexpr long long os_wave = kOneWaveChunkCostBlocks128 * 128 / kBN;
  static constexpr long long os_sfine = kSpreadFineChunkCostBlocks128 * 128 / kBN;
  static constexpr int kMinShortChunk = kShortFineMinChunkKeys / kBN;
  static constexpr long long os_short = kShortFineChunkCostBlocks128 * 128 / kBN;
  int partial_slots, nb_max, q_max;
  long long work, g;
  bool fine, rows, sfine, sshort;
  __device__ __forceinline__ SplitSearch(int partial_slots_, long long work_, int nb_max_, int q_max_)
      : partial_slots(partial_slots_), nb_max(nb_max_), q_max(q_max_), work(work_), g(max((int)gridDim.x, 1)) {
    fine = fine_split_possible<kBN>(nb_max);
    rows = row_split_possible<kBM, kBN>(nb_max, q_max);
    sfine = spread_fine_possible<kBM>(nb_max, q_max);
    sshort = short_fine_possible<kBM, kBN>(nb_max, q_max);  // implies sfine: nothing() and ends() need no term
  }
  __device__ __forceinline__ bool nothing() const {
    const int c2 = (nb_max + 1) / 2;
    return (c2 < kMinChunk && !fine && !rows && !sfine) || nb_max <= c2;
  }
  __device__ __forceinline__ int chunk(int i) const {
    const int k = split_candidate(i);
    return k == 1 ? kNoSplit : (nb_max + k - 1) / k;
  }
  __device__ __forceinline__ bool ends(int i, int c, long long prev_n) const {
    if (i > 0 && (c < (rows || sfine ? 1 : kMinWaveChunk) || nb_max <= c)) return true;
    return !rows && c < kMinWaveChunk && prev_n > kRowSplitMaxUnits;
  }
  __device__ __forceinline__ long long estimate(int i, int c, long long split, long long unsplit) const {
    const int k = split_candidate(i);
    const long long n = split + unsplit;
    const bool one_wave = k > 1 && n <= g;
    // The spread merge's calls merge at any row count and cheaply enough for
    // chunks of kMinChunkKeys; with `fine`, any call of one wave takes chunks
    // of kOneWaveMinChunkKeys; the row split, chunks finer than that, at
    // most kRowSplitMaxChunks a tile and kRowSplitMaxUnits in all; the
    // spread fine split, chunks of one to three blocks the spread merge takes.
    const bool spread = kBM <= 128 && one_wave && ceil_div(nb_max, c) >= kSpreadMinChunks;
    const bool row = rows && one_wave;
    const bool row_fine = row && c < kMinWaveChunk;
    const bool spread_fine = sfine && one_wave && c < kMinWaveChunk && ceil_div(nb_max, c) >= kSpreadMergeMinChunks &&
                             n <= kRowSplitMaxUnits;
    // The short fine split: chunks of kShortFineMinChunkKeys up to
    // kOneWaveMinChunkKeys of tiles too short for the fine split.
    const bool short_fine = sshort && one_wave && !spread_fine && c < kMinWaveChunk && c >= kMinShortChunk;
    const int most = row_fine ? kRowSplitMaxChunks : spread ? kMaxChunks : max_chunks(q_max);
    const int least = row_fine || spread_fine ? 1
                      : short_fine            ? kMinShortChunk
                      : fine && one_wave      ? kMinWaveChunk
                      : spread                ? kMinSpreadChunk
                                              : kMinChunk;
    if (k > 1 && (k > most || c < least || (row_fine && n > kRowSplitMaxUnits))) return LLONG_MAX;
    if (split > partial_slots) return LLONG_MAX;
    const long long os = spread_fine ? os_sfine
                         : short_fine ? os_short
                         : row || (kBM <= 128 && one_wave && !spread && c < kMinChunk) ? os_wave
                                                                                         : os_tile;
    const long long cost = work + o * n + os * split;
    const long long longest = k == 1 ? nb_max + o : (long long)ceil_div(nb_max, ceil_div(nb_max, c)) + o + os;
    // The product in unsigned arithmetic: it wraps (defined, as units::auto_chunk's
    // wrapping_mul) only for shapes far beyond any GPU's memory.
    const long long rounds_cost = (long long)((unsigned long long)((n + g - 1) / g) * (unsigned long long)cost);
    return max(longest, rounds_cost / n);
  }
};

// The candidates' choice, a lane a candidate (lane i < kNumSplitCandidates
// holds units(split_candidate(i)), packed as (split chunks << 32) + unsplit
// tiles, one kv head): the candidate units::auto_chunk's walk picks. The
// walk stops at the first candidate that ends it (ends() reads the previous
// candidate's unit count, a shuffle here), and of those before it the first
// least estimate wins, so every candidate is priced at once instead of one
// after another (each estimate is a chain of divisions: walked serially by
// one warp, 12 of them held a split call's first unit back 7-13 us).
// Called by a whole warp (every lane shuffles: a lane that skips a
// full-mask shuffle hangs the others); warp-uniform result.
template <int kBM, int kBN>
__device__ __forceinline__ int pick_candidate(const SplitSearch<kBM, kBN>& ss, long long packed) {
  static_assert(kNumSplitCandidates <= 32, "a lane a candidate");
  const int lane = threadIdx.x & 31, i = min(lane, kNumSplitCandidates - 1);
  const int c = ss.chunk(i);
  const long long split = kNumKvHeads * (packed >> 32), unsplit = kNumKvHeads * (packed & 0xffffffffll);
  const long long n = split + unsplit;
  if (__shfl_sync(0xffffffffu, n, 0) == 0) return kNoSplit;  // no tiles at all (every candidate's n is 0)
  const long long up = __shfl_up_sync(0xffffffffu, n, 1);
  const long long prev_n = lane == 0 ? 0 : up;
  const bool ends = lane >= kNumSplitCandidates || ss.ends(i, c, prev_n);
  const unsigned walked = (1u << (__ffs(__ballot_sync(0xffffffffu, ends)) - 1)) - 1;  // lane 0 never ends
  const long long est = (walked >> lane) & 1 ? ss.estimate(i, c, split, unsplit) : LLONG_MAX;
  long long least = est;
  CUTLASS_PRAGMA_UNROLL
  for (int o = 16; o > 0; o >>= 1) least = min(least, __shfl_xor_sync(0xffffffffu, least, o));
  const int first = __ffs(__ballot_sync(0xffffffffu, est == least)) - 1;  // candidate 0's estimate is finite
  return __shfl_sync(0xffffffffu, c, first);
}

// units(c) of one sequence (SplitSearch's packed form).
template <int kBM, int kBN>
__device__ __forceinline__ long long seq_units(int q_len, int kv_len, int c) {
  const SeqShape<kBM, kBN> s{q_len, kv_len};
  return c == kNoSplit ? s.tiles() : ((long long)s.split_chunks(c) << 32) + s.unsplit(c);
}

// The sequences of a warp-built plan (batch <= kWarpPlanMaxBatch), lane b
// holding sequence b (zero past the batch), and the call's totals the
// split search reads. Every producer warp loads them (the search runs on
// all four); producer warp 0 builds the plan from its copy.
template <int kBM, int kBN>
struct WarpPlanSeqs {
  SeqRange r;
  int nb;  // key blocks of the longest tile (-1 past the batch: ranks last)
  long long work;
  int nb_max, q_max;
  __device__ __forceinline__ WarpPlanSeqs() : r{0, 0, 0, 0}, nb(-1), work(0), nb_max(0), q_max(0) {}
  __device__ __forceinline__ explicit WarpPlanSeqs(const Params& p) : r{0, 0, 0, 0} {
    static_assert(kWarpPlanMaxBatch <= 32, "a lane a sequence");
    const int b = threadIdx.x & 31;
    const bool real = b < p.batch;
    if (real) r = load_seq(p, b);
    const SeqShape<kBM, kBN> s{r.q_len, r.kv_len};
    nb = real ? s.max_blocks() : -1;
    work = kNumKvHeads * warp_sum(real ? s.total_blocks() : 0);
    nb_max = nb;
    q_max = r.q_len;
    CUTLASS_PRAGMA_UNROLL
    for (int o = 16; o > 0; o >>= 1) {
      nb_max = max(nb_max, __shfl_xor_sync(0xffffffffu, nb_max, o));
      q_max = max(q_max, __shfl_xor_sync(0xffffffffu, q_max, o));
    }
  }
};

// The warp-built plan's memo (automatic split, batch <= kWarpPlanMaxBatch):
// the split size the search chose for the last such call, in the workspace,
// so that a call whose lengths repeat (every layer of a forward pass, a
// benchmark's loop, a graph replayed on one batch) skips the search (0.3-3.7
// us of a searched call on the H200). Its key is what the search reads: the
// tile shape, grid, merge slots, batch and every sequence's (q_len, kv_len),
// so a hit chooses what the search would (the same bits). Each producer warp
// of every CTA reads the memo at entry and then counts itself on
// kWsMemoReads, an increment modulo the call's readers, so the count is
// back at 0 once every reader has read (and for the next call). Once its
// units are out, the last CTA's producer warp 0 (in a short call the one
// with the least work) writes the entry on a miss if it finds the count at
// 0 (else a CTA that was not yet resident has still to read: the entry is
// left as it was). So no reader sees its own call's write (nor a
// torn entry), the next call (stream order) sees all of it, and no CTA
// waits for another.
// Layout at kWsMemo (ints): key (4), split size, 3 spare, then (q_len,
// kv_len) per sequence.
constexpr int kMemoLens = 8;
static_assert(kWsMemo + kMemoLens + 2 * kWarpPlanMaxBatch <= kWsCounterInts, "the memo fits the counters");
template <int kBM, int kBN>
struct PlanMemo {
  // Nonzero (a zeroed workspace holds no entry); the shape's and a version's.
  static constexpr int kKey0 = 0x50A00000 | (1 << 16) | (kBM << 8) | kBN / 64;
  int4 key;
  int2 len;          // lane b: sequence b's
  int chunk;         // the entry's split size
  bool hit = false;  // the entry is this call's (warp-uniform)
  // Issues the entry's loads (every lane of a producer warp), beside the
  // sequences' own (WarpPlanSeqs) rather than after them.
  __device__ __forceinline__ void load(const Params& p) {
    const int lane = threadIdx.x & 31;
    const int* m = p.ws_counters + kWsMemo;
    key = __ldcg(reinterpret_cast<const int4*>(m));
    chunk = __ldcg(m + 4);
    len = lane < p.batch ? __ldcg(reinterpret_cast<const int2*>(m + kMemoLens) + lane) : make_int2(0, 0);
  }
  // Compares the entry with this call (lane b holding sequence b's lengths
  // in r), keeps the outcome in *hit_slot (shared memory: a register would
  // be held through the search's call and the units) and counts this warp
  // as one of the call's `readers`. The vote has used every lane's loads
  // before the count is issued, so no store the count enables can reach
  // them: a relaxed increment (a release would fence the warp) without a
  // result (one held through the search and the units would wait for its
  // round trip where ptxas saves it).
  __device__ __forceinline__ void check(const Params& p, const SeqRange& r, int readers, long long* hit_slot) {
    const int lane = threadIdx.x & 31;
    const bool same = key.x == kKey0 && key.y == (int)gridDim.x && key.z == p.partial_slots && key.w == p.batch &&
                      (lane >= p.batch || (len.x == r.q_len && len.y == r.kv_len));
    hit = __all_sync(0xffffffffu, same);
    if (lane == 0 && threadIdx.x / 32 == kProducerWarp0) *hit_slot = hit;
    if (lane == 0)
      asm volatile("red.relaxed.gpu.global.inc.u32 [%0], %1;" ::"l"(p.ws_counters + kWsMemoReads), "r"(readers - 1)
                   : "memory");
  }
  // In the last CTA's producer warp 0, its units out: on a miss (*hit_slot
  // false), once every reader has read, the entry (this call's lengths,
  // loaded again rather than held through the units, and the split size it
  // ran).
  template <class Plan>
  static __device__ __forceinline__ void finish(const Params& p, const Plan& pl, const long long* hit_slot) {
    if (blockIdx.x != gridDim.x - 1 || threadIdx.x / 32 != kProducerWarp0 || *hit_slot) return;
    const int lane = threadIdx.x & 31;
    unsigned reads = 0;
    if (lane == 0)
      asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(reads) : "l"(p.ws_counters + kWsMemoReads) : "memory");
    if (__shfl_sync(0xffffffffu, reads, 0) != 0) return;  // a CTA not yet resident has still to read
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
    int* m = p.ws_counters + kWsMemo;
    const SeqRange r = lane < p.batch ? load_seq(p, lane) : SeqRange{0, 0, 0, 0};
    if (lane < p.batch) reinterpret_cast<int2*>(m + kMemoLens)[lane] = make_int2(r.q_len, r.kv_len);
    if (lane == 0) {
      *reinterpret_cast<int4*>(m) = make_int4(kKey0, (int)gridDim.x, p.partial_slots, p.batch);
      m[4] = pl.chunk;
    }
  }
};

// units::auto_chunk for the warp-built plan, on the kThreads / 32 warps of
// the producer warpgroup (each with its WarpPlanSeqs). The candidates go in
// rounds of `per` a warp, `lanes` lanes a candidate (the batch rounded up
// to a power of two, each lane its sequences), the rounds dealt to the
// warps in turn; each candidate's units go to red[i], and after the
// warpgroup's barrier every warp picks (the same choice; producer warp 0,
// the plan's builder, uses it). One round for up to 2 sequences, one
// round a warp up to 8, three for 17-32 (one warp walking them took up to
// twelve: a lone warp's chain of divisions is ~1000 cycles a candidate,
// H200). Every candidate is priced (no early end: the rounds run side by
// side); the consumer warps stay out (with the search on every warp,
// 4-sequence calls were 0.4 us slower: likely the consumers' own first
// code fetch, which overlaps the plan, waiting behind it).
// Called by every producer thread; ss.nothing() is the same in every warp,
// so either all take the barrier or none. Not inlined: inlined into the
// entry points, the search moved ptxas's register allocation into spills.
template <int kThreads, int kBM, int kBN>
__device__ __noinline__ int auto_chunk_warps(int partial_slots, long long work, int nb_max, int q_max, int batch,
                                             int q_len, int kv_len, long long* red) {
  static_assert(kNumSplitCandidates <= sizeof(PlanStorage<1>::red) / sizeof(long long), "the sums' slots");
  const SplitSearch<kBM, kBN> ss(partial_slots, work, nb_max, q_max);
  if (ss.nothing()) return kNoSplit;
  const int lane = threadIdx.x & 31, warp = threadIdx.x / 32;
  const int lg = 32 - __clz(batch - 1);  // log2 of `lanes` (batch >= 1)
  const int lanes = 1 << lg, per = 32 >> lg, group = lane >> lg, j = lane & (lanes - 1);
#pragma unroll 1
  for (int i0 = warp * per; i0 < kNumSplitCandidates; i0 += kThreads / 32 * per) {
    const int i = i0 + group;
    const int c = ss.chunk(min(i, kNumSplitCandidates - 1));
    long long v = 0;
#pragma unroll 1
    for (int b0 = 0; b0 < batch; b0 += lanes)  // uniform trip count: the loop shuffles
      v += seq_units<kBM, kBN>(__shfl_sync(0xffffffffu, q_len, b0 + j), __shfl_sync(0xffffffffu, kv_len, b0 + j), c);
#pragma unroll 1
    for (int o = lanes >> 1; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    if (j == 0 && i < kNumSplitCandidates) red[i] = v;
  }
  named_bar_sync(kThreads, kBarProducer);
  return pick_candidate(ss, lane < kNumSplitCandidates ? red[lane] : 0);
}

// units::auto_chunk for the plan the whole CTA builds (batch up to
// Plan::kMax, the sequences in shared memory): warp w sums candidates w,
// w + kThreads / 32, ... over every sequence, a lane a sequence, into
// red[i]; warp 0 picks. Every thread calls it (block barriers); red[]
// holds at least kNumSplitCandidates + 1 values.
template <int kThreads, int kBM, int kBN>
__device__ __noinline__ int auto_chunk_block(int partial_slots, long long work, int nb_max, int q_max, int batch,
                                             const SeqRange* s_range, long long* red) {
  const SplitSearch<kBM, kBN> ss(partial_slots, work, nb_max, q_max);
  if (ss.nothing()) return kNoSplit;  // uniform: its inputs are block reductions
  const int lane = threadIdx.x & 31, warp = threadIdx.x / 32;
  __syncthreads();  // red[] free (the reductions before read it)
#pragma unroll 1
  for (int i = warp; i < kNumSplitCandidates; i += kThreads / 32) {
    const int c = ss.chunk(i);
    long long v = 0;
#pragma unroll 1
    for (int b = lane; b < batch; b += 32) v += seq_units<kBM, kBN>(s_range[b].q_len, s_range[b].kv_len, c);
    v = warp_sum(v);
    if (lane == 0) red[i] = v;
  }
  __syncthreads();
  if (warp == 0) {
    const int chunk = pick_candidate(ss, lane < kNumSplitCandidates ? red[lane] : 0);
    if (lane == 0) red[kNumSplitCandidates] = chunk;
  }
  __syncthreads();
  return (int)red[kNumSplitCandidates];  // the next writer of red[] waits at a barrier first (block_sum)
}
__device__ __forceinline__ int initial_chunk(const Params& p) {
  return p.split_blocks < 0 ? kNoSplit : p.split_blocks;  // forced (auto: auto_chunk_warps / _block)
}

// Builds the plan with all kThreads threads of the CTA (called by every
// thread before the warp roles split; ends with __syncthreads).
template <int kThreads, int kBM, int kBN, class Plan>
__device__ void build_plan(const Params& p, Plan& pl, int* scratch) {
  using Shape = SeqShape<kBM, kBN>;
  constexpr int kMax = Plan::kMax;
  static_assert(kThreads / 32 <= sizeof(Plan::red) / sizeof(long long), "a reduction slot per warp (m192: 16)");
  static_assert(kNumSplitCandidates + 1 <= sizeof(Plan::red) / sizeof(long long), "auto_chunk_block's sums");
  const int tid = threadIdx.x, batch = p.batch;
  if (batch > kMax || batch <= 0) {
    if (tid < 32) set_fixed_order(p, pl);
    __syncthreads();
    return;
  }
  SeqRange* s_range = reinterpret_cast<SeqRange*>(scratch);  // [kMax]
  int* s_nb = scratch + 4 * kMax;
  int* s_rank = scratch + 5 * kMax;
  long long work = 0;
  int nb_max = 0, q_max = 0;
  for (int b = tid; b < batch; b += kThreads) {
    const SeqRange r = load_seq(p, b);
    const Shape s{r.q_len, r.kv_len};
    s_range[b] = r;
    s_nb[b] = s.max_blocks();
    nb_max = max(nb_max, s_nb[b]);
    q_max = max(q_max, r.q_len);
    work += s.total_blocks();
  }
  work = kNumKvHeads * block_sum<kThreads>(work, pl.red);
  nb_max = (int)block_max<kThreads>(nb_max, pl.red);
  int chunk = initial_chunk(p);
  if (p.split_blocks == 0) {
    q_max = (int)block_max<kThreads>(q_max, pl.red);
    chunk = auto_chunk_block<kThreads, kBM, kBN>(p.partial_slots, work, nb_max, q_max, batch, s_range, pl.red);
  } else {
    // A forced split size, doubled until the split units fit the merge
    // slots (the automatic one fits: its estimate rejects the others).
    while (chunk != kNoSplit) {
      long long n1 = 0;
      for (int b = tid; b < batch; b += kThreads) n1 += Shape{s_range[b].q_len, s_range[b].kv_len}.split_chunks(chunk);
      if (kNumKvHeads * block_sum<kThreads>(n1, pl.red) <= p.partial_slots) break;
      chunk = chunk > kNoSplit / 4 ? kNoSplit : chunk * 2;
    }
  }
  // Rank: decreasing key blocks, then index (a stable sort by counting).
  for (int b = tid; b < batch; b += kThreads) {
    int rank = b;
    if (batch <= kSortMaxBatch) {
      const int nb = s_nb[b];
      rank = 0;
      for (int o = 0; o < batch; ++o) {
        const int no = s_nb[o];
        rank += (no > nb) | ((no == nb) & (o < b));
      }
    }
    s_rank[rank] = b;
  }
  __syncthreads();
  // Exclusive scans over ranks of (split chunks, unsplit tiles): each thread
  // a contiguous run of ranks, then the runs' totals across the CTA.
  constexpr int kRun = (kMax + kThreads - 1) / kThreads;
  int a[kRun], u[kRun];
  int sa = 0, su = 0;
  CUTLASS_PRAGMA_UNROLL
  for (int i = 0; i < kRun; ++i) {
    const int r = tid * kRun + i;
    a[i] = u[i] = 0;
    if (r < batch) {
      const SeqRange sr = s_range[s_rank[r]];
      const Shape s{sr.q_len, sr.kv_len};
      a[i] = chunk == kNoSplit ? 0 : (int)s.split_chunks(chunk);
      u[i] = chunk == kNoSplit ? s.tiles() : s.unsplit(chunk);
      pl.range[r] = sr;
    }
    sa += a[i];
    su += u[i];
  }
  // Exclusive scan of (sa, su) over threads, packed in one 64-bit value.
  const long long packed = ((long long)sa << 32) | (unsigned)su;
  long long incl = packed;
  const int lane = tid & 31, warp = tid / 32;
  CUTLASS_PRAGMA_UNROLL
  for (int o = 1; o < 32; o <<= 1) {
    const long long y = __shfl_up_sync(0xffffffffu, incl, o);
    if (lane >= o) incl += y;
  }
  __syncthreads();
  if (lane == 31) pl.red[warp] = incl;
  __syncthreads();
  long long base = 0;
  for (int w = 0; w < warp; ++w) base += pl.red[w];
  long long excl = base + incl - packed;
  int ea = (int)(excl >> 32), eu = (int)(excl & 0xffffffffll);
  CUTLASS_PRAGMA_UNROLL
  for (int i = 0; i < kRun; ++i) {
    const int r = tid * kRun + i;
    if (r < batch) {
      pl.pre_split[r] = ea;
      pl.pre_tiles[r] = eu;
      pl.unsplit[r] = u[i];
    }
    ea += a[i];
    eu += u[i];
  }
  if (tid == kThreads - 1) {  // the last thread's run ends at the totals
    pl.pre_split[batch] = ea;
    pl.pre_tiles[batch] = eu;
    pl.chunk = chunk;
    pl.n_split = kNumKvHeads * ea;
    pl.n_units = kNumKvHeads * (ea + eu);
    pl.planned = 1;
  }
  __syncthreads();
}

// The same plan built by one warp, lane b for sequence b (batch <=
// kWarpPlanMaxBatch), from its WarpPlanSeqs and the split size the
// producer warpgroup's search chose (auto_chunk_warps; initial_chunk when
// forced): no block barrier, so only the warp that decodes the units
// (producer warp 0) waits for it.
template <int kBM, int kBN, class Plan>
__device__ void build_plan_warp(const Params& p, Plan& pl, const WarpPlanSeqs<kBM, kBN>& sq, int chunk) {
  using Shape = SeqShape<kBM, kBN>;
  const int b = threadIdx.x & 31, batch = p.batch;
  const bool real = b < batch;
  const SeqRange r = sq.r;
  const Shape s{r.q_len, r.kv_len};
  const int nb = sq.nb;
  if (p.split_blocks > 0) {
    // A forced split size, doubled until the split units fit the merge
    // slots (the automatic one fits: its estimate rejects the others).
    while (chunk != kNoSplit && kNumKvHeads * warp_sum(real ? s.split_chunks(chunk) : 0) > p.partial_slots)
      chunk = chunk > kNoSplit / 4 ? kNoSplit : chunk * 2;
  }
  const long long units = real ? seq_units<kBM, kBN>(r.q_len, r.kv_len, chunk) : 0;
  const int a = (int)(units >> 32), u = (int)(units & 0xffffffffll);
  // Rank (decreasing key blocks, then index) and the exclusive prefixes in
  // rank order, by one pass over the lanes.
  int rank = 0, pa = 0, pu = 0, ta = 0, tu = 0;
  for (int o = 0; o < batch; ++o) {
    const int no = __shfl_sync(0xffffffffu, nb, o);
    const int ao = __shfl_sync(0xffffffffu, a, o), uo = __shfl_sync(0xffffffffu, u, o);
    const bool before = (no > nb) | ((no == nb) & (o < b));
    rank += before;
    pa += before ? ao : 0;
    pu += before ? uo : 0;
    ta += ao;
    tu += uo;
  }
  if (real) {
    pl.pre_split[rank] = pa;
    pl.pre_tiles[rank] = pu;
    pl.unsplit[rank] = u;
    pl.range[rank] = r;
  }
  if (b == 0) {
    pl.pre_split[batch] = ta;
    pl.pre_tiles[batch] = tu;
    pl.chunk = chunk;
    pl.n_split = kNumKvHeads * ta;
    pl.n_units = kNumKvHeads * (ta + tu);
    pl.planned = 1;
  }
  __syncwarp();
}

// A plan made on the host (p.plan: the image of PlanStorage up to `red`):
// producer warp 0, the plan's only reader, copies the parts a batch of
// p.batch sequences uses, 16 bytes per cp.async, instead of building it.
template <class Plan>
__device__ void load_plan_warp(const Params& p, Plan& pl) {
  static_assert(offsetof(Plan, pre_split) == 16 && offsetof(Plan, pre_tiles) % 16 == 0 &&
                    offsetof(Plan, unsplit) % 16 == 0 && offsetof(Plan, range) % 16 == 0,
                "the host image's layout (units::PlanImage)");
  const int lane = threadIdx.x & 31, b = p.batch;
  const char* src = reinterpret_cast<const char*>(p.plan);
  const uint32_t base = static_cast<uint32_t>(__cvta_generic_to_shared(&pl));
  auto copy = [&](const void* field, int n_ints) {
    const uint32_t off = static_cast<uint32_t>(__cvta_generic_to_shared(field)) - base;
    for (int i = lane; i < (n_ints + 3) / 4; i += 32)
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(base + off + 16 * i),
                   "l"(src + off + 16 * i) : "memory");
  };
  copy(&pl.chunk, 4);
  copy(pl.pre_split, b + 1);
  copy(pl.pre_tiles, b + 1);
  copy(pl.unsplit, b);
  copy(pl.range, 4 * b);
  asm volatile("cp.async.wait_all;" ::: "memory");
  __syncwarp();
}

// A host plan carried in the parameters (p.inline_plan, batch <=
// kInlinePlanMaxBatch): producer warp 0 copies it into the shared-memory
// plan, lane i the i-th entry of each table.
template <class Plan>
__device__ void load_plan_params(const Params& p, Plan& pl) {
  using Img = PlanStorage<kInlinePlanMaxBatch>;
  static_assert(offsetof(Img, range) + sizeof(Img::range) == kInlinePlanInts * sizeof(int),
                "the inline image's size (units::inline_plan)");
  static_assert(Plan::kMax >= kInlinePlanMaxBatch, "an inline plan fits every configuration's plan");
  const int lane = threadIdx.x & 31, b = p.batch;
  const int* img = p.inline_plan;
  constexpr int kPreSplit = offsetof(Img, pre_split) / 4, kPreTiles = offsetof(Img, pre_tiles) / 4;
  constexpr int kUnsplit = offsetof(Img, unsplit) / 4, kRange = offsetof(Img, range) / 4;
  if (lane < 4) (&pl.chunk)[lane] = img[lane];
  if (lane <= b) {
    pl.pre_split[lane] = img[kPreSplit + lane];
    pl.pre_tiles[lane] = img[kPreTiles + lane];
  }
  if (lane < b) {
    pl.unsplit[lane] = img[kUnsplit + lane];
    pl.range[lane] = SeqRange{img[kRange + 4 * lane], img[kRange + 4 * lane + 1], img[kRange + 4 * lane + 2],
                              img[kRange + 4 * lane + 3]};
  }
  __syncwarp();
}

// Largest r in [0, n) with a[r] <= v (a nondecreasing, a[0] = 0 <= v).
__device__ __forceinline__ int last_le(const int* a, int n, int v) {
  int lo = 0, hi = n;  // answer in [lo, hi)
  while (hi - lo > 1) {
    const int mid = (lo + hi) >> 1;
    if (a[mid] <= v) lo = mid; else hi = mid;
  }
  return lo;
}

// ---- fallback order (batch > kPlanMaxBatch): tiles in the fixed numbering
// tile_start(b) = floor(6 * qo_indptr[b] / kBlockM) + b (src/schedule.rs),
// the last tile first, nothing split.
template <int kBM>
__device__ __forceinline__ long long tile_start(long long qo_start, int b) {
  return (kGroup * qo_start) / kBM + b;
}
// Largest b in [0, batch) with tile_start(b) <= t, by a 32-ary search done by
// one warp: one coalesced load of up to 32 indptr entries per step.
template <int kBM>
__device__ __forceinline__ int find_sequence(const int* __restrict__ qo_indptr, int batch, long long t) {
  const int lane = threadIdx.x & 31;
  int lo = 0, hi = batch;
  while (hi - lo > 1) {
    const int step = (hi - lo + 31) / 32;
    const int idx = lo + lane * step;
    bool pred = false;
    if (idx < hi) pred = tile_start<kBM>(__ldg(qo_indptr + idx), idx) <= t;
    const unsigned ballot = __ballot_sync(0xffffffffu, pred);
    const int last = ballot ? 31 - __clz(ballot) : 0;
    lo = lo + last * step;
    hi = min(lo + step, hi);
  }
  return lo;
}

// Decodes ticket u into a unit. Called by a whole warp (the fallback search
// uses its lanes); every lane gets the same unit.
template <int kBM, int kBN, class Plan>
__device__ __forceinline__ WorkUnit decode_unit(const Params& p, const Plan& pl, int u) {
  using Shape = SeqShape<kBM, kBN>;
  WorkUnit w;
  w.state = kUnitSkip;
  w.seq = w.kv_head = w.m_block = 0;
  w.q_start = w.q_len = w.kv_start = w.kv_len = 0;
  w.blk_lo = w.blk_hi = w.chunk = 0;
  w.n_chunks = 1;
  w.slot = w.sem = 0;
  if (u < 0 || u >= pl.n_units) {
    w.state = kUnitDone;
    return w;
  }
  w.kv_head = u % kNumKvHeads;
  if (!pl.planned) {
    const long long t = (long long)p.tiles_per_head - 1 - u / kNumKvHeads;
    const int b = find_sequence<kBM>(p.qo_indptr, p.batch, t);
    const long long q0 = __ldg(p.qo_indptr + b);
    const SeqRange r = load_seq(p, b);
    const long long mb = t - tile_start<kBM>(q0, b);
    if (q0 < 0 || mb < 0 || mb >= Shape{r.q_len, r.kv_len}.tiles()) return w;  // spare tile / bad sequence
    w.seq = b;
    w.m_block = (int)mb;
    w.q_start = r.q_start; w.q_len = r.q_len; w.kv_start = r.kv_start; w.kv_len = r.kv_len;
    w.blk_hi = Shape{r.q_len, r.kv_len}.blocks((int)mb);
    w.state = kUnitWork;
    return w;
  }
  const bool split = u < pl.n_split;
  const int v = (split ? u : u - pl.n_split) / kNumKvHeads;
  const int rank = last_le(split ? pl.pre_split : pl.pre_tiles, p.batch, v);
  const SeqRange r = pl.range[rank];
  const Shape s{r.q_len, r.kv_len};
  w.seq = rank;  // the sequence's rank in the plan (its index is not needed)
  w.q_start = r.q_start; w.q_len = r.q_len; w.kv_start = r.kv_start; w.kv_len = r.kv_len;
  if (split) {
    // The j-th chunk of the sequence's split tiles, tiles from the last down.
    int j = v - pl.pre_split[rank];
    const int c = pl.chunk;
    int m = s.tiles() - 1, n = s.blocks(m), k = (n + c - 1) / c;
    while (j >= k) {
      j -= k;
      --m;
      n = s.blocks(m);
      k = (n + c - 1) / c;
    }
    w.m_block = m;
    w.chunk = j;
    w.n_chunks = k;
    w.blk_lo = j * n / k;
    w.blk_hi = (j + 1) * n / k;
    w.slot = u;
    w.sem = u - kNumKvHeads * j;
  } else {
    const int m = pl.unsplit[rank] - 1 - (v - pl.pre_tiles[rank]);
    w.m_block = m;
    w.blk_hi = s.blocks(m);
  }
  w.state = kUnitWork;
  return w;
}

// Tickets: CTA c's first two units are c and 2G - 1 - c (G = gridDim.x:
// heaviest with lightest of the first 2G, and no counter on the path, so
// the second unit loads right behind the first); later ones come from the
// workspace counter (2G + its value). A CTA stops at its first ticket past
// the units, so the counter is taken max(0, n - 2G) + clamp(n - G, 0, G)
// times in all (n units; only CTAs whose second unit exists take it); an
// atomic increment modulo that count hands out 0, 1, ... and wraps to 0 on
// the last take, which leaves the counter reset for the next call. The raw
// value is used only when the next unit is decoded, so nothing waits for the
// atomic's round trip before then (plain PTX: an atomicAdd would be
// warp-aggregated, whose result broadcast waits at once).
__device__ __forceinline__ int issue_ticket(const Params& p, int n_units) {
  const int g = (int)gridDim.x;
  const unsigned last = (unsigned)(max(0, n_units - 2 * g) + min(max(n_units - g, 0), g) - 1);
  int raw;
  asm volatile("atom.global.inc.u32 %0, [%1], %2;" : "=r"(raw) : "l"(p.ws_counters + kWsUnitTicket), "r"(last)
               : "memory");
  return raw;
}
// The k-th ticket of this CTA (raw: the counter's value, for k >= 2).
__device__ __forceinline__ int ticket_of(int k, int raw) {
  const int g = (int)gridDim.x;
  return k == 0 ? (int)blockIdx.x : k == 1 ? 2 * g - 1 - (int)blockIdx.x : 2 * g + raw;
}

// Checks indptr entries [first, first + 32) with one warp and ORs ErrorBits
// into the workspace error flag. CTA c checks entries c*32 + k*32*gridDim.x.
__device__ __forceinline__ void validate_indptrs(const Params& p, long long first) {
  const int lane = threadIdx.x & 31;
  const long long i = first + lane;
  int bits = 0;
  if (i <= p.batch) {
    const int q = __ldg(p.qo_indptr + i), k = __ldg(p.kv_indptr + i);
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
