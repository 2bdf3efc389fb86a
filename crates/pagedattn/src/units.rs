//! The kernel's work units: how one call is cut into pieces that the
//! persistent CTAs take one at a time. This is a bit-exact mirror of
//! `kernels/attn/scheduler.cuh`, which computes the same plan on the device
//! from the indptrs at the start of every CTA (no host synchronisation). On
//! the host it serves the tests, reasoning about a call, and
//! [`plan_image`]: the same plan made on the host, which
//! `PagedPrefill::plan` uploads so that the kernel copies it instead.
//!
//! A *tile* is `block_m` packed rows (token-major, the 6 query heads of one
//! kv head per token) of one sequence and one kv head; it sees `n` key blocks
//! of `block_n` keys (causal, bottom-right aligned). A *unit* is a tile, or,
//! for a tile longer than the split size `C` (in key blocks), one of its
//! `ceil(n / C)` chunks of consecutive key blocks. Chunks write partial
//! results to the workspace and the last one to finish merges them.
//!
//! Order (LPT-like, heaviest first): all chunks of split tiles, then all
//! unsplit tiles; within each phase sequences by decreasing key-block count
//! (for batches up to [`SORT_MAX_BATCH`]), tiles of a sequence from the last
//! (heaviest) down, the 4 kv heads of a tile adjacent.

use crate::problem::{GROUP_SIZE, NUM_KV_HEADS};
use crate::schedule::{tiles_per_head, SplitPolicy, TileConfig};

/// Largest batch the device plan handles (its tables live in shared
/// memory, `kPlanMaxBatch` of the kernel traits); larger batches take the
/// fallback order (no split, no sort).
pub fn plan_max_batch(config: TileConfig) -> usize {
    match config {
        TileConfig::M128 => 1024,
        // m192's kernel traits take m128d's plan (kPlanMaxBatch).
        TileConfig::M128Deep | TileConfig::M128DeepV | TileConfig::M192 => {
            crate::schedule::M128_DEEP_MAX_BATCH
        }
        TileConfig::M64 => 512,
    }
}
/// Merge slots of the workspace per CTA of the persistent grid: the split
/// units a plan may have (a plan whose split does not fit takes a coarser
/// one). Four lets the automatic split cut the tiles of cached prefixes
/// into up to three chunks per CTA (an m128 workspace of 34 MB).
pub const MERGE_SLOTS_PER_CTA: u64 = 4;

/// The merge slots a workspace holds for `config` on a GPU of `sms` SMs:
/// [`MERGE_SLOTS_PER_CTA`] per CTA of the 128- and 64-row grids (128 rows
/// of partial output per SM each), which m192 shares in 192-row slots (the
/// CUDA backend's workspace layout).
pub fn merge_slots(config: TileConfig, sms: usize) -> usize {
    MERGE_SLOTS_PER_CTA as usize * sms * 128 / config.block_m()
}

/// Largest batch whose sequences are sorted by length.
pub const SORT_MAX_BATCH: usize = 256;
/// Smallest chunk (in keys) the automatic split makes: a chunk's partial
/// write and merge cost about as much as this many keys of attention, so
/// tiles of up to twice this many keys are never split.
pub const MIN_CHUNK_KEYS: i64 = 512;
/// Most chunks per tile the automatic split makes: where every tile is
/// merged by rows ([`ROW_MERGE_MAX_ROWS`]), which takes about as long for 64
/// chunks of a few query rows as the merge by fragments for 16 chunks of a
/// full tile. One query over 32768 keys is 4 tiles, which need 32-64 chunks
/// each to fill the H200's SMs.
pub const MAX_CHUNKS: i64 = 64;
/// Most chunks per tile where some tile is merged by fragments (a chunk per
/// round of loads): 32 chunks of 8 queries over 65536 keys took 0.73 of
/// 16 chunks' time on the H200 (nineteenth session, call 1).
pub const MAX_CHUNKS_BY_FRAGMENTS: i64 = 32;
/// Smallest chunk (in keys) of a call whose units all fit one wave of the
/// grid: there the chunks' partial writes and merges run beside each other
/// rather than after other units, so short tiles of decode-like calls
/// (few tiles of a few query rows over 768-4096 keys) are cut finer than
/// [`MIN_CHUNK_KEYS`]. Measured on the H200 (twenty-second session, call
/// 2): one query over 4000 keys 26.6 us in chunks of 1024 keys, 16.6 in
/// chunks of 256; one over 1300 keys 25.2 unsplit, 17.7.
pub const ONE_WAVE_MIN_CHUNK_KEYS: i64 = 256;
/// Most chunks of a tile cut finer than [`ONE_WAVE_MIN_CHUNK_KEYS`] by the
/// row split ([`row_split_possible`]).
pub const ROW_SPLIT_MAX_CHUNKS: i64 = 32;
/// Most units of a call cut finer than [`ONE_WAVE_MIN_CHUNK_KEYS`] by the
/// row split: about one an SM of the H200 (two chunks of a few rows on one
/// SM cost more than they gain: one query over 4000 keys in 252 units of
/// 64 keys 16.3 us, in 125 of 128 keys 15.2; 16 sequences of one query over
/// 256 keys in 256 units 21.5, unsplit 14.8; twenty-third session, call 1).
pub const ROW_SPLIT_MAX_UNITS: i64 = 128;
/// What the automatic split counts a chunk of a call of one wave as, in
/// 128-key blocks, where it is merged by rows, or shorter than
/// `2 * MIN_CHUNK_KEYS` (the fine split's chunks, [`fine_split_possible`];
/// configurations of at most two consumer warpgroups) and merged by the
/// last chunk (a tile of fewer than [`SPREAD_MIN_CHUNKS`], as the split
/// sees it: since the twenty-fifth session the kernel's spread merge also
/// takes the calls whose longest tile has [`SPREAD_MERGE_MIN_CHUNKS`] to 8
/// chunks, which this cost was not refitted for; the spread
/// merge's chunks of many rows keep 4: twenty-fourth session, call 8, one
/// sequence of 14 queries over 2087 keys 28.4 us in 9 chunks of 256 keys,
/// 20.1 in 6 of 384; 3 x 12 over ~2000 30.0 -> 24.3; 3 x 10 over 5000
/// 33.8 -> 27.7): every chunk runs
/// beside the others, so its partial write and merge cost less than in a
/// call of several waves ([`CHUNK_COST_BLOCKS128`]; longer chunks and
/// m192's keep that cost, which the m192 rule's model was fitted with and
/// m192's three warpgroups were not measured without).
/// Fitted on the H200: for chunks merged by rows ([`row_split_possible`])
/// on the twenty-third session's call 1 (forced chunks of 64-256 keys on
/// one to sixteen sequences of one query): 3 makes the fastest choice on
/// each of its six calls (2 would split 16 sequences of one query over 256
/// keys, 21.5 us against 14.8 unsplit on m64, and 8 over 400 keys on
/// m128dv, 16.3 against 15.6); for chunks merged by fragments on the
/// twenty-fourth session's call 1 (50 calls of 3-16 queries a sequence on
/// 1-16 sequences, m64 and m128dv in chunks of 128-512 keys, two rounds):
/// 3 splits the three calls of 640-768 keys whose tiles fit one wave, at
/// 0.85-0.93 of their unsplit time (ten queries over 742 keys 18.5 us ->
/// 15.7), and changes no other of the 50 (2 would move more, some 1.25x
/// slower; chunks of 128 keys at 3, some 1.19x slower).
pub const ONE_WAVE_CHUNK_COST_BLOCKS128: i64 = 3;
/// Fewest chunks of the longest tile for which the automatic split, in a
/// call of one wave, may cut chunks of [`MIN_CHUNK_KEYS`] and up to
/// [`MAX_CHUNKS`] whatever the rows (kernel: `kSpreadMinChunks`): the
/// spread merge ([`SPREAD_MERGE_MIN_CHUNKS`]) takes such tiles.
pub const SPREAD_MIN_CHUNKS: i64 = 9;
/// Fewest chunks of the longest tile of a call of one wave (every unit its
/// CTA's first) from which the spread merge takes every split tile of the
/// call (kernel: `kSpreadMergeMinChunks`, `SplitMerge::spread`): the chunks
/// of a tile all help merge it, so that one SM does not read every chunk's
/// partial alone. Measured on the H200 (twenty-fifth session, calls 3-4,
/// the one-wave calls of the short-decode draws and the split set): with
/// the spread merge for every split tile, the calls whose longest tile has
/// 7-8 chunks took 0.86-0.93 of the last chunk's merge (three sequences of
/// 12 queries over 2048 keys 24.5 -> 21.2 us, four of two over 1024 18.9
/// -> 16.3), those of 6 chunks 0.95-1.06, those of 2-5 chunks of many rows
/// up to 1.28 (each warp's share of the pieces is then several rows, one
/// after another, where the last chunk's merge reads a few 32 KB rounds);
/// with it for the tiles of 7+ chunks only, the calls whose other tiles had
/// 6 were 1.05-1.07 slower than with none. Only the merge changes: the
/// split's plans do not.
pub const SPREAD_MERGE_MIN_CHUNKS: i64 = 7;
/// What the automatic split counts a chunk of the spread fine split as, in
/// 128-key blocks ([`spread_fine_possible`]): chunks of one to three
/// 64-key blocks of m64 tiles merged by fragments, in a call of one wave of
/// at most [`ROW_SPLIT_MAX_UNITS`] units whose longest tile they cut into
/// [`SPREAD_MERGE_MIN_CHUNKS`] or more (so that the kernel's spread merge
/// takes every split tile). Measured on the H200 (twenty-sixth session,
/// call 3: chunks of 1-4 blocks forced on the short-decode draws, after the
/// cheaper arrival and merge of v17.9): one sequence of 9 queries over 912
/// keys 16.0 us in 4 chunks of 256 keys, 14.2 in 15 of 64; one of 14 over
/// 487 keys 15.5 unsplit, 13.9 in 8 of 64; two of 3 over ~1500 16.0 in 8
/// chunks a tile, 14.7 in 13; where the units passed ~130 (two CTAs an SM)
/// or the tiles were 128 rows, such chunks were slower (two sequences of 13
/// queries over 2048 keys in 176 units 1.045, four of 16 over 1024 on
/// m128dv 1.19).
pub const SPREAD_FINE_CHUNK_COST_BLOCKS128: i64 = 2;
/// Whether a call on `config` whose longest sequence has `q_max` queries
/// and longest tile `nb_max` key blocks can take the spread fine split
/// ([`SPREAD_FINE_CHUNK_COST_BLOCKS128`]): m64, tiles merged by fragments,
/// and one-block chunks would be [`SPREAD_MERGE_MIN_CHUNKS`] or more.
/// Kernel: `spread_fine_possible`.
pub fn spread_fine_possible(config: TileConfig, nb_max: i64, q_max: i64) -> bool {
    config.block_m() == 64
        && q_max * GROUP_SIZE as i64 > ROW_MERGE_MAX_ROWS
        && nb_max >= SPREAD_MERGE_MIN_CHUNKS
}
/// Smallest chunk (in keys) of the short fine split
/// ([`short_fine_possible`]): three 64-key blocks, so that a tile of 8-10
/// blocks is cut into 3-4 chunks. Fortieth session (H100, call 1: m64's
/// chunks forced at 1-6 blocks on decode-like calls of 2-5 sequences of
/// 11-24 queries over 450-640 keys, which neither the fine nor the spread
/// fine split cut): chunks of 2-4 blocks took 0.85-0.95 of the automatic
/// choice's time (m128dv, unsplit; e.g. three sequences of 13, 7 and 9
/// queries over up to 589 keys 17.0 -> 14.4 us), chunks of 2 blocks up to
/// 7% slower than of 3-4 on four sequences (5 chunks a tile, 160 units),
/// one block slower still. Forty-first session (H100, call 2c, host plan,
/// against the build before it): with the decode rule's change below it
/// moved 61 of 426 calls (the split, mix and a fresh draw of 2-12
/// sequences of 3-24 queries over 150-2048 keys), 0.922 of their time
/// (0.793-1.087; 8 slower, the most with 3 queries or 12 sequences); the
/// other 365 calls 1.001. Device plan: 0.951 on the moved calls.
pub const SHORT_FINE_MIN_CHUNK_KEYS: i64 = 192;
/// Fewest 64-key blocks of the longest tile for the short fine split: over
/// 7 blocks a chunk of 3 and its cost are no shorter than the tile.
pub const SHORT_FINE_MIN_BLOCKS: i64 = 8;
// The short fine split's calls are the spread fine split's too (auto_chunk's
// finest chunk relies on it).
const _: () = assert!(SHORT_FINE_MIN_BLOCKS >= SPREAD_MERGE_MIN_CHUNKS);
/// What the automatic split counts a chunk of the short fine split as, in
/// 128-key blocks: as the spread fine split's, so that 8 blocks already
/// split (3 + 2 + 4 against 8 + 2 blocks of 64 keys) as call 1 found.
pub const SHORT_FINE_CHUNK_COST_BLOCKS128: i64 = 2;
/// Whether a call on `config` whose longest sequence has `q_max` queries
/// and longest tile `nb_max` key blocks can take the short fine split: m64
/// tiles merged by fragments, too short for chunks of
/// [`ONE_WAVE_MIN_CHUNK_KEYS`] ([`fine_split_possible`]) but of at least
/// [`SHORT_FINE_MIN_BLOCKS`] blocks, cut in a call of one wave into chunks
/// of at least [`SHORT_FINE_MIN_CHUNK_KEYS`] at
/// [`SHORT_FINE_CHUNK_COST_BLOCKS128`] a chunk. Kernel:
/// `short_fine_possible`.
pub fn short_fine_possible(config: TileConfig, nb_max: i64, q_max: i64) -> bool {
    config.block_m() == 64
        && q_max * GROUP_SIZE as i64 > ROW_MERGE_MAX_ROWS
        && nb_max >= SHORT_FINE_MIN_BLOCKS
        && !fine_split_possible(config, nb_max)
}
/// A split tile's consumer warpgroup with at most this many real rows (of
/// its 64) may be merged by rows: only the real rows are written and read,
/// a warp per row (kernels/attn/merge.cuh). It is, for a sequence of at
/// most this many rows (decode-like, up to [`MAX_CHUNKS`] chunks) and a
/// warpgroup of at most 4 real rows; the tail warpgroup of a longer
/// sequence takes it only where its rows' rounds cost less than a round
/// a chunk by fragments (`SplitMerge::by_rows`).
pub const ROW_MERGE_MAX_ROWS: i64 = 16;
/// The automatic split's candidates: the longest tile cut into this many
/// chunks (1: nothing split), up to [`max_chunks`]. Kernel: `split_candidate`.
pub const SPLIT_CANDIDATES: [i64; 12] = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64];

/// Most chunks per tile the automatic split makes for a call whose longest
/// sequence has `q_max` queries. Kernel: `max_chunks`.
pub fn max_chunks(q_max: i64) -> i64 {
    if q_max * crate::problem::GROUP_SIZE as i64 <= ROW_MERGE_MAX_ROWS {
        MAX_CHUNKS
    } else {
        MAX_CHUNKS_BY_FRAGMENTS
    }
}
/// What the automatic split counts a work unit as, beyond its key blocks,
/// in 128-key blocks: a unit's start and end (its first QK GEMM and softmax
/// without overlap, the last PV, the epilogue), and for a chunk of a split
/// tile its partial write, count and share of the merge. Measured on the
/// H200 (BENCHMARKS.md, fifth session): a chunk's synchronisation costs
/// about 4 us on the chain (2 us partial write and count, 2 us merge), and
/// of 3, 4 and 5 blocks, 4 makes the choices that were fastest on 21 of 22
/// timed cached-prefix shapes (the 22nd within 2%).
pub const UNIT_COST_BLOCKS128: i64 = 1;
/// See [`UNIT_COST_BLOCKS128`].
pub const CHUNK_COST_BLOCKS128: i64 = 4;

/// The automatic split size (key blocks; `i64::MAX`: nothing split) of a call
/// with `work` key blocks over all tiles and kv heads, the longest tile
/// `nb_max` blocks, on `grid` CTAs; `units(c)` gives the (split chunks,
/// unsplit tiles) over all kv heads for split size `c`. Of the candidates
/// (the longest tile cut into [`SPLIT_CANDIDATES`] chunks, each at least
/// `2 * MIN_CHUNK_KEYS` keys, at most [`max_chunks`]`(q_max)` of them, or,
/// where the spread merge takes the call ([`SPREAD_MIN_CHUNKS`]), at least
/// `MIN_CHUNK_KEYS` keys and at most [`MAX_CHUNKS`] (configurations of at
/// most two consumer warpgroups), or, where the units fit one wave and the
/// longest tile is longer than a chunk of [`ONE_WAVE_MIN_CHUNK_KEYS`] and
/// its cost ([`fine_split_possible`]), at least `ONE_WAVE_MIN_CHUNK_KEYS`
/// keys; the split units fitting `partial_slots`), the
/// one with the least estimated time: the longest unit, or the units per
/// CTA rounded up times their mean cost, whichever is larger (a unit and a
/// chunk cost [`UNIT_COST_BLOCKS128`] / [`CHUNK_COST_BLOCKS128`] blocks
/// beyond their own; in a call of one wave, a chunk merged by rows, or of
/// fewer than `2 * MIN_CHUNK_KEYS` keys in a configuration of at most two
/// consumer warpgroups and not taken by the spread merge,
/// [`ONE_WAVE_CHUNK_COST_BLOCKS128`]); where [`spread_fine_possible`],
/// also chunks of 1-3 blocks in a call of one wave of at most
/// [`ROW_SPLIT_MAX_UNITS`] units whose longest tile they cut into
/// [`SPREAD_MERGE_MIN_CHUNKS`] or more, at
/// [`SPREAD_FINE_CHUNK_COST_BLOCKS128`] a chunk (the search stops at the
/// first such candidate past the units).
/// The first of equal estimates (the fewer chunks) wins.
/// Kernel: `SplitSearch` and `pick_candidate` (`kernels/attn/scheduler.cuh`),
/// the same integer arithmetic; there every candidate reached is priced at
/// once (`auto_chunk_warps`, `auto_chunk_block`), the same choice as this walk.
pub fn auto_chunk(
    config: TileConfig,
    work: i64,
    nb_max: i64,
    q_max: i64,
    grid: i64,
    partial_slots: i64,
    units: impl Fn(i64) -> (i64, i64),
) -> i64 {
    let bn = config.block_n() as i64;
    // The spread merge: configurations of at most two consumer warpgroups.
    let spread_ok = config.block_m() <= 128;
    let min_chunk = 2 * MIN_CHUNK_KEYS / bn;
    let min_spread_chunk = MIN_CHUNK_KEYS / bn;
    let min_wave_chunk = ONE_WAVE_MIN_CHUNK_KEYS / bn;
    let fine = fine_split_possible(config, nb_max);
    let rows = row_split_possible(config, nb_max, q_max);
    let sfine = spread_fine_possible(config, nb_max, q_max);
    let sshort = short_fine_possible(config, nb_max, q_max);
    let min_short_chunk = SHORT_FINE_MIN_CHUNK_KEYS / bn;
    let (o, os, os_wave, os_sfine, os_short) = (
        UNIT_COST_BLOCKS128 * 128 / bn,
        CHUNK_COST_BLOCKS128 * 128 / bn,
        ONE_WAVE_CHUNK_COST_BLOCKS128 * 128 / bn,
        SPREAD_FINE_CHUNK_COST_BLOCKS128 * 128 / bn,
        SHORT_FINE_CHUNK_COST_BLOCKS128 * 128 / bn,
    );
    // The finest chunk any candidate may have (the short fine split's
    // calls are also the spread fine split's: SHORT_FINE_MIN_BLOCKS >=
    // SPREAD_MERGE_MIN_CHUNKS).
    let finest = if rows || sfine { 1 } else { min_wave_chunk };
    let g = grid.max(1);
    let (mut best, mut best_est) = (i64::MAX, i64::MAX);
    let mut prev_n = 0;
    for k in SPLIT_CANDIDATES {
        let c = if k == 1 {
            i64::MAX
        } else {
            ceil_div(nb_max, k)
        };
        if k > 1 && (c < finest || nb_max <= c) {
            break;
        }
        // Below ONE_WAVE_MIN_CHUNK_KEYS, without the row split, only the
        // spread fine split's candidates go, within ROW_SPLIT_MAX_UNITS
        // units: finer chunks only add units.
        if !rows && c < min_wave_chunk && prev_n > ROW_SPLIT_MAX_UNITS {
            break;
        }
        let (split, unsplit) = units(c);
        let n = split + unsplit;
        if n == 0 {
            return i64::MAX;
        }
        prev_n = n;
        // The spread merge's calls (one wave, the longest tile in 9-64
        // chunks) merge at any row count and cheaply enough for chunks of
        // MIN_CHUNK_KEYS; with `fine`, any call of one wave takes chunks
        // of ONE_WAVE_MIN_CHUNK_KEYS.
        let one_wave = k > 1 && n <= g;
        let spread = spread_ok && one_wave && ceil_div(nb_max, c) >= SPREAD_MIN_CHUNKS;
        // The row split: chunks finer than ONE_WAVE_MIN_CHUNK_KEYS, at
        // most ROW_SPLIT_MAX_CHUNKS a tile and ROW_SPLIT_MAX_UNITS in all.
        let row = rows && one_wave;
        let row_fine = row && c < min_wave_chunk;
        // The spread fine split: chunks of one to three blocks that the
        // spread merge takes, at most ROW_SPLIT_MAX_UNITS units.
        let spread_fine = sfine
            && one_wave
            && c < min_wave_chunk
            && ceil_div(nb_max, c) >= SPREAD_MERGE_MIN_CHUNKS
            && n <= ROW_SPLIT_MAX_UNITS;
        // The short fine split: chunks of SHORT_FINE_MIN_CHUNK_KEYS up to
        // ONE_WAVE_MIN_CHUNK_KEYS of tiles too short for the fine split.
        let short_fine =
            sshort && one_wave && !spread_fine && c < min_wave_chunk && c >= min_short_chunk;
        let most = if row_fine {
            ROW_SPLIT_MAX_CHUNKS
        } else if spread {
            MAX_CHUNKS
        } else {
            max_chunks(q_max)
        };
        let least = if row_fine || spread_fine {
            1
        } else if short_fine {
            min_short_chunk
        } else if fine && one_wave {
            min_wave_chunk
        } else if spread {
            min_spread_chunk
        } else {
            min_chunk
        };
        if k > 1 && (k > most || c < least || (row_fine && n > ROW_SPLIT_MAX_UNITS)) {
            continue;
        }
        if split > partial_slots {
            continue;
        }
        // A chunk merged by rows in a call of one wave, or one shorter than
        // 2 * MIN_CHUNK_KEYS there (configurations of at most two consumer
        // warpgroups) that the spread merge does not take, costs
        // ONE_WAVE_CHUNK_COST_BLOCKS128: the spread merge of a tile of
        // many rows costs more (it copies 4 bytes a lane a chunk).
        let os = if spread_fine {
            os_sfine
        } else if short_fine {
            os_short
        } else if row || (spread_ok && one_wave && !spread && c < min_chunk) {
            os_wave
        } else {
            os
        };
        let cost = work + o * n + os * split;
        let longest = if k == 1 {
            nb_max + o
        } else {
            ceil_div(nb_max, ceil_div(nb_max, c)) + o + os
        };
        // rounds x cost overflows only for shapes far beyond any GPU's
        // memory (a plan of 10^8 queries over 10^9 keys); it wraps there as
        // the kernel's unsigned product does, so both still pick the same
        // candidate, and a debug build does not panic.
        let est = longest.max(ceil_div(n, g).wrapping_mul(cost) / n);
        if est < best_est {
            (best, best_est) = (c, est);
        }
    }
    best
}
/// Whether a tile of `nb_max` key blocks can be cut into chunks of
/// [`ONE_WAVE_MIN_CHUNK_KEYS`] to any gain by the split's estimate: its
/// blocks beyond one such chunk are more than a chunk's cost in a call of
/// one wave ([`ONE_WAVE_CHUNK_COST_BLOCKS128`]), i.e. more than 640 keys.
/// Kernel: `fine_split_possible`.
pub fn fine_split_possible(config: TileConfig, nb_max: i64) -> bool {
    nb_max > fine_split_max_whole_blocks(config)
}
/// The longest tile, in key blocks, that the fine split leaves whole
/// ([`fine_split_possible`]).
fn fine_split_max_whole_blocks(config: TileConfig) -> i64 {
    (ONE_WAVE_MIN_CHUNK_KEYS + ONE_WAVE_CHUNK_COST_BLOCKS128 * 128) / config.block_n() as i64
}
/// Whether a call whose longest sequence has `q_max` queries and longest
/// tile `nb_max` key blocks can take the row split: its split tiles merge by
/// rows ([`ROW_MERGE_MAX_ROWS`], configurations of at most two consumer
/// warpgroups) and a chunk of one block and its cost
/// ([`ONE_WAVE_CHUNK_COST_BLOCKS128`]) are shorter than the tile (m64: more than
/// 448 keys; 128-key blocks: more than 512). Kernel: `row_split_possible`.
pub fn row_split_possible(config: TileConfig, nb_max: i64, q_max: i64) -> bool {
    let bn = config.block_n() as i64;
    config.block_m() <= 128
        && q_max * GROUP_SIZE as i64 <= ROW_MERGE_MAX_ROWS
        && nb_max > 1 + ONE_WAVE_CHUNK_COST_BLOCKS128 * 128 / bn
}
/// Batches up to this size have their plan built by one warp.
pub const WARP_PLAN_MAX_BATCH: usize = 32;

/// Key-block count of each tile of one sequence, in closed form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeqShape {
    /// Query tokens.
    pub q_len: i64,
    /// Keys.
    pub kv_len: i64,
    /// Packed rows per tile.
    pub bm: i64,
    /// Keys per block.
    pub bn: i64,
}

fn ceil_div(a: i64, b: i64) -> i64 {
    // b > 0; rounds toward +inf for any sign of a.
    a.div_euclid(b) + i64::from(a.rem_euclid(b) != 0)
}

/// sum_{i in 0..n} clamp(a * i + c, 0, h), a >= 1, h >= 0.
fn sum_clamped(a: i64, c: i64, n: i64, h: i64) -> i64 {
    if n <= 0 || h <= 0 {
        return 0;
    }
    // i < i_lo: value <= 0; i >= i_hi: value >= h.
    let i_lo = if c > 0 {
        0
    } else {
        ((-c).div_euclid(a) + 1).min(n)
    };
    let i_hi = ceil_div(h - c, a).clamp(i_lo, n);
    let cnt = i_hi - i_lo;
    let sum_i = (i_lo + i_hi - 1) * cnt / 2;
    a * sum_i + c * cnt + h * (n - i_hi)
}

impl SeqShape {
    /// Tiles (per kv head).
    pub fn tiles(&self) -> i64 {
        ceil_div(GROUP_SIZE as i64 * self.q_len, self.bm)
    }
    /// Key blocks of the sequence's last tile (the most of any tile).
    pub fn max_blocks(&self) -> i64 {
        if self.q_len == 0 {
            0
        } else {
            ceil_div(self.kv_len, self.bn)
        }
    }
    /// Key blocks tile `m` sees.
    pub fn blocks(&self, m: i64) -> i64 {
        let g = GROUP_SIZE as i64;
        let last_row = ((m + 1) * self.bm).min(g * self.q_len) - 1;
        let max_key = (self.kv_len - 1).min(last_row / g + self.kv_len - self.q_len);
        if max_key >= 0 {
            max_key / self.bn + 1
        } else {
            0
        }
    }
    /// Keys of block `j` are seen from tile `first_tile(j)` on (j < max_blocks).
    fn c0(&self) -> i64 {
        let delta = self.kv_len - self.q_len;
        ceil_div(1 - GROUP_SIZE as i64 * delta, self.bm) - 1
    }
    fn slope(&self) -> i64 {
        GROUP_SIZE as i64 * self.bn / self.bm
    }
    /// First tile that sees key block `j` (for j < max_blocks).
    pub fn first_tile(&self, j: i64) -> i64 {
        (self.slope() * j + self.c0()).clamp(0, self.tiles() - 1)
    }
    /// Key blocks summed over the tiles.
    pub fn total_blocks(&self) -> i64 {
        let (t, nb) = (self.tiles(), self.max_blocks());
        if t == 0 || nb == 0 {
            return 0;
        }
        nb * t - sum_clamped(self.slope(), self.c0(), nb, t - 1)
    }
    /// Tiles with at most `c` key blocks (they are not split): tiles
    /// `0 .. unsplit(c)`.
    pub fn unsplit(&self, c: i64) -> i64 {
        if c >= self.max_blocks() {
            self.tiles()
        } else {
            self.first_tile(c)
        }
    }
    /// (split chunks, unsplit tiles) for split size `c` (`i64::MAX`: none).
    fn parts(&self, c: i64) -> (i64, i64) {
        if c == i64::MAX {
            (0, self.tiles())
        } else {
            (self.split_chunks(c), self.unsplit(c))
        }
    }
    /// Chunks of the split tiles (`unsplit(c) ..`), `ceil(n / c)` each.
    pub fn split_chunks(&self, c: i64) -> i64 {
        let (t, nb) = (self.tiles(), self.max_blocks());
        if c >= nb {
            return 0;
        }
        let s = self.first_tile(c);
        // sum over t' >= 1 with t' c < nb of (T - first_tile(t' c)).
        let t_max = (nb - 1) / c;
        let c0 = self.c0();
        let all = sum_clamped(self.slope() * c, c0, t_max + 1, t - 1);
        (t - s) + t_max * t - (all - c0.clamp(0, t - 1))
    }
}

/// An upper bound on the units of a call from its shapes alone (the grid
/// size of a launch, which must not depend on index contents): every tile
/// of every kv head, times the most chunks a tile can be cut into (with the
/// automatic split, chunks of [`MIN_CHUNK_KEYS`] at the least where there
/// can be [`SPREAD_MIN_CHUNKS`] of them: the spread merge's, and of
/// [`ONE_WAVE_MIN_CHUNK_KEYS`] where [`fine_split_possible`] and two
/// chunks of every tile fit the `resident` CTAs, and up to
/// [`ROW_SPLIT_MAX_UNITS`] of one block where [`row_split_possible`]; a
/// call that cannot split stays direct).
pub fn max_units(
    config: TileConfig,
    dims: &crate::problem::Dims,
    split: SplitPolicy,
    resident: u64,
) -> u64 {
    let tiles =
        tiles_per_head(dims.total_q, dims.batch, config.block_m()) as u64 * NUM_KV_HEADS as u64;
    let bn = config.block_n() as i64;
    let nb_max = ceil_div(dims.num_kv_indices as i64, bn).max(1);
    let chunks = match split {
        SplitPolicy::Never => 1,
        SplitPolicy::Blocks(n) => nb_max.min(ceil_div(nb_max, n.max(1) as i64)),
        SplitPolicy::Auto => {
            // Chunks of 2 * MIN_CHUNK_KEYS, or of MIN_CHUNK_KEYS where there
            // can be SPREAD_MIN_CHUNKS of them (the spread merge's), or of
            // ONE_WAVE_MIN_CHUNK_KEYS in a call of one wave.
            let spread = ceil_div(nb_max, MIN_CHUNK_KEYS / bn);
            let coarse = if spread >= SPREAD_MIN_CHUNKS {
                spread
            } else {
                ceil_div(nb_max, 2 * MIN_CHUNK_KEYS / bn)
            };
            let fine = if fine_split_possible(config, nb_max) && tiles.saturating_mul(2) <= resident
            {
                ceil_div(nb_max, ONE_WAVE_MIN_CHUNK_KEYS / bn)
            } else {
                1
            };
            coarse.max(fine).min(MAX_CHUNKS)
        }
    };
    // The row split: at most ROW_SPLIT_MAX_UNITS units, of sequences of at
    // most ROW_MERGE_MAX_ROWS / GROUP_SIZE queries (some sequence has at
    // least the mean).
    let q_least = ceil_div(dims.total_q as i64, dims.batch.max(1) as i64);
    let row = if split == SplitPolicy::Auto
        && row_split_possible(config, nb_max, q_least)
        && tiles.saturating_mul(2) <= ROW_SPLIT_MAX_UNITS as u64
    {
        tiles
            .saturating_mul(nb_max.min(ROW_SPLIT_MAX_CHUNKS) as u64)
            .min(ROW_SPLIT_MAX_UNITS as u64)
    } else {
        0
    };
    // The spread fine split: at most ROW_SPLIT_MAX_UNITS units of one-block
    // chunks, of sequences of more than ROW_MERGE_MAX_ROWS / GROUP_SIZE
    // queries (some sequence has at least the mean), SPREAD_MERGE_MIN_CHUNKS
    // of every tile fitting one wave.
    let sfine = if split == SplitPolicy::Auto
        && spread_fine_possible(config, nb_max, q_least)
        && tiles.saturating_mul(SPREAD_MERGE_MIN_CHUNKS as u64)
            <= resident.min(ROW_SPLIT_MAX_UNITS as u64)
    {
        tiles
            .saturating_mul(nb_max.min(MAX_CHUNKS) as u64)
            .min(ROW_SPLIT_MAX_UNITS as u64)
    } else {
        0
    };
    // The short fine split: chunks of SHORT_FINE_MIN_CHUNK_KEYS of tiles
    // of at most the fine split's shortest (the tiles' blocks are at most
    // nb_max), two chunks of every tile fitting the resident CTAs.
    let short_blocks = nb_max.min(fine_split_max_whole_blocks(config));
    let sshort = if split == SplitPolicy::Auto
        && short_fine_possible(config, short_blocks, q_least)
        && tiles.saturating_mul(2) <= resident
    {
        tiles.saturating_mul(ceil_div(short_blocks, SHORT_FINE_MIN_CHUNK_KEYS / bn) as u64)
    } else {
        0
    };
    tiles
        .saturating_mul(chunks.max(1) as u64)
        .max(row)
        .max(sfine)
        .max(sshort)
}

/// The grid of a launch whose configuration keeps `resident` CTAs on the
/// device (one wave, each walking work units) and whether the call is
/// direct: a unit per CTA at most and nothing to split, so the plan could
/// not change anything and the kernel skips it. No more CTAs than the call
/// can have units ([`max_units`]); the grid depends on the shapes only, so
/// a captured graph stays valid for any indptr contents. `None`: a call
/// with no tiles (nothing to compute). The CUDA backend launches this
/// shape; the `plans` example prints it.
pub fn launch_grid(
    config: TileConfig,
    dims: &crate::problem::Dims,
    split: SplitPolicy,
    resident: u64,
) -> Option<(u64, bool)> {
    let tiles =
        tiles_per_head(dims.total_q, dims.batch, config.block_m()) as u64 * NUM_KV_HEADS as u64;
    if tiles == 0 {
        return None;
    }
    let bound = max_units(config, dims, split, resident);
    let grid = resident.min(bound).max(1);
    Some((grid, bound == tiles && tiles <= grid))
}

/// How a call planned on the host launches ([`planned_launch`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlannedLaunch {
    /// CTAs in the grid.
    pub grid: u64,
    /// The direct entry point (a unit per CTA, nothing split).
    pub direct: bool,
    /// The split policy the image was planned with (`Never` where the call
    /// was made direct).
    pub split: SplitPolicy,
    /// The plan image the launch takes ([`plan_image`]); `None` where the
    /// kernel takes none (a direct call above [`INLINE_PLAN_MAX_BATCH`]
    /// sequences, a batch above [`plan_max_batch`]).
    pub image: Option<Vec<i32>>,
}

/// The launch of a call planned on the host (`PagedPrefill::plan`), from
/// `inp` made for the shape-only launch ([`launch_grid`]: `inp.grid` and
/// `direct`). Where that launch is persistent but the host's plan splits
/// no tile and the call's tiles fit the `resident` CTAs, the persistent
/// grid buys nothing: the call launches the direct entry point on a CTA
/// per tile instead (no tickets, the shortest code), its image planned
/// with no split. Direct calls take an image only inline: the parameters
/// cost nothing to read, a plan in device memory would cost a trip.
pub fn planned_launch(inp: &PlanInputs<'_>, direct: bool, resident: u64) -> PlannedLaunch {
    let batch = inp.qo_indptr.len().saturating_sub(1);
    let direct_image = |grid: usize, split: SplitPolicy| {
        if batch <= INLINE_PLAN_MAX_BATCH {
            plan_image(&PlanInputs {
                grid,
                split,
                ..*inp
            })
        } else {
            None
        }
    };
    if direct {
        return PlannedLaunch {
            grid: inp.grid as u64,
            direct,
            split: inp.split,
            image: direct_image(inp.grid, inp.split),
        };
    }
    let image = plan_image(inp);
    let tiles = tiles_per_head(inp.total_q, batch, inp.config.block_m()) * NUM_KV_HEADS;
    // Header int 1: the split units (plan_image).
    let splits = image.as_ref().is_none_or(|img| img[1] != 0);
    if splits || tiles as u64 > resident {
        return PlannedLaunch {
            grid: inp.grid as u64,
            direct: false,
            split: inp.split,
            image,
        };
    }
    PlannedLaunch {
        grid: tiles as u64,
        direct: true,
        split: SplitPolicy::Never,
        image: direct_image(tiles, SplitPolicy::Never),
    }
}

/// One work unit as the kernel sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unit {
    /// Sequence index.
    pub seq: usize,
    /// Kv head 0..4.
    pub kv_head: usize,
    /// Tile (row block) inside the sequence.
    pub m_block: usize,
    /// Key blocks `blk_lo .. blk_hi` of the tile.
    pub blk_lo: usize,
    /// End of the key-block range.
    pub blk_hi: usize,
    /// This unit's chunk index and the tile's chunk count (1: not split).
    pub chunk: usize,
    /// Chunks of the tile.
    pub n_chunks: usize,
    /// Merge slot of this chunk (split tiles only): its unit index.
    pub slot: Option<usize>,
}

/// The units of one call, in the order the kernel hands them out.
#[derive(Clone, Debug)]
pub struct UnitPlan {
    /// Tile shape.
    pub config: TileConfig,
    /// Split size in key blocks (`i64::MAX`: nothing is split).
    pub chunk: i64,
    /// Units of split tiles (they come first and use merge slots 0..).
    pub split_units: usize,
    /// All units.
    pub units: Vec<Unit>,
    /// Whether the device plan applied (batch <= [`plan_max_batch`]).
    pub planned: bool,
}

/// A sequence's lengths as the kernel reads them: a bad range counts as empty.
fn seq_lens(qo: &[i32], kv: &[i32], b: usize, total_q: usize, num_kv_indices: usize) -> (i64, i64) {
    let r = seq_range(qo, kv, b, total_q, num_kv_indices);
    (r[1] as i64, r[3] as i64)
}

/// What a plan is made from: the call's tile shape, its indptrs and sizes,
/// and the launch it is for (grid and merge slots).
#[derive(Clone, Copy, Debug)]
pub struct PlanInputs<'a> {
    /// Tile shape.
    pub config: TileConfig,
    /// `[batch + 1]` query offsets.
    pub qo_indptr: &'a [i32],
    /// `[batch + 1]` page-id offsets.
    pub kv_indptr: &'a [i32],
    /// Query rows of the call.
    pub total_q: usize,
    /// Page ids of the call.
    pub num_kv_indices: usize,
    /// CTAs of the launch.
    pub grid: usize,
    /// The split policy.
    pub split: SplitPolicy,
    /// Merge slots the workspace holds for this configuration.
    pub partial_slots: usize,
}

/// What the plan decides before it lists the units: the sequences' shapes,
/// the split size and the rank order (shared by [`UnitPlan::new`] and
/// [`plan_image`], so the two cannot disagree).
struct Schedule {
    shapes: Vec<SeqShape>,
    /// Split size in key blocks (`i64::MAX`: nothing is split).
    chunk: i64,
    split_units: usize,
    /// Sequence index of each rank.
    order: Vec<usize>,
}

impl Schedule {
    /// `None` for batches the device plan does not handle (above
    /// [`plan_max_batch`]).
    fn new(inp: &PlanInputs<'_>) -> Option<Schedule> {
        let PlanInputs {
            config,
            qo_indptr,
            kv_indptr,
            total_q,
            num_kv_indices,
            grid,
            split,
            partial_slots,
        } = *inp;
        let batch = qo_indptr.len().saturating_sub(1);
        if batch > plan_max_batch(config) {
            return None;
        }
        let (bm, bn) = (config.block_m() as i64, config.block_n() as i64);
        let heads = NUM_KV_HEADS as i64;
        let shapes: Vec<SeqShape> = (0..batch)
            .map(|b| {
                let (q_len, kv_len) = seq_lens(qo_indptr, kv_indptr, b, total_q, num_kv_indices);
                SeqShape {
                    q_len,
                    kv_len,
                    bm,
                    bn,
                }
            })
            .collect();
        let work: i64 = heads * shapes.iter().map(|s| s.total_blocks()).sum::<i64>();
        let nb_max = shapes.iter().map(|s| s.max_blocks()).max().unwrap_or(0);
        let q_max = shapes.iter().map(|s| s.q_len).max().unwrap_or(0);
        let heads_units = |c: i64| -> (i64, i64) {
            let (a, u) = shapes
                .iter()
                .map(|s| s.parts(c))
                .fold((0, 0), |(a, u), (x, y)| (a + x, u + y));
            (heads * a, heads * u)
        };
        let mut chunk = match split {
            SplitPolicy::Never => i64::MAX,
            SplitPolicy::Blocks(n) => n.max(1) as i64,
            SplitPolicy::Auto => auto_chunk(
                config,
                work,
                nb_max,
                q_max,
                grid as i64,
                partial_slots as i64,
                heads_units,
            ),
        };
        // Double a forced chunk until the split units fit the merge slots.
        let split_units = loop {
            let n1 = if chunk == i64::MAX {
                0
            } else {
                heads_units(chunk).0
            };
            if n1 <= partial_slots as i64 {
                break n1 as usize;
            }
            chunk = if chunk > i64::MAX / 4 {
                i64::MAX
            } else {
                chunk * 2
            };
        };
        // Rank order: sequences by decreasing key-block count, then index.
        let mut order: Vec<usize> = (0..batch).collect();
        if batch <= SORT_MAX_BATCH {
            order.sort_by_key(|&b| (std::cmp::Reverse(shapes[b].max_blocks()), b));
        }
        Some(Schedule {
            shapes,
            chunk,
            split_units,
            order,
        })
    }

    /// Split chunks and unsplit tiles of sequence `b` (per kv head).
    fn parts(&self, b: usize) -> (i64, i64) {
        self.shapes[b].parts(self.chunk)
    }
}

/// Ints of a plan image's header (split size, split units, units, planned).
pub const PLAN_IMAGE_HEADER: usize = 4;

/// Offsets (in ints) of a plan image's arrays, as in `PlanStorage` of the
/// kernel: every array in whole 16-byte rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlanImageLayout {
    /// Exclusive prefix of split chunks, by rank (`plan_max_batch + 1`).
    pub pre_split: usize,
    /// Exclusive prefix of unsplit tiles, by rank (`plan_max_batch + 1`).
    pub pre_tiles: usize,
    /// Unsplit tiles, by rank.
    pub unsplit: usize,
    /// `(q_start, q_len, kv_start, kv_len)`, by rank.
    pub range: usize,
    /// Ints in all.
    pub len: usize,
}

impl PlanImageLayout {
    /// The layout for `config`'s plan capacity.
    pub fn of(config: TileConfig) -> PlanImageLayout {
        Self::with_capacity(plan_max_batch(config))
    }

    /// The layout of a plan of at most `max` sequences (`PlanStorage<max>`).
    pub fn with_capacity(max: usize) -> PlanImageLayout {
        let scan = (max + 1).div_ceil(4) * 4; // PlanStorage::kScanLen
        let pre_split = PLAN_IMAGE_HEADER;
        let pre_tiles = pre_split + scan;
        let unsplit = pre_tiles + scan;
        let range = unsplit + max.div_ceil(4) * 4;
        PlanImageLayout {
            pre_split,
            pre_tiles,
            unsplit,
            range,
            len: range + 4 * max,
        }
    }
}

/// The plan the kernel would build for this call, made on the host in the
/// layout of its shared-memory tables (`PlanStorage` up to its reduction
/// scratch, `kernels/attn/scheduler.cuh`): the header, then by rank the
/// exclusive prefixes of split chunks and of unsplit tiles, the unsplit
/// tiles and each sequence's `(q_start, q_len, kv_start, kv_len)`. The
/// kernel copies the parts a batch uses instead of building them from the
/// indptrs. `None` where the kernel has no plan (empty batch, or above
/// [`plan_max_batch`]).
pub fn plan_image(inp: &PlanInputs<'_>) -> Option<Vec<i32>> {
    let (config, qo_indptr, kv_indptr) = (inp.config, inp.qo_indptr, inp.kv_indptr);
    let batch = qo_indptr.len().saturating_sub(1);
    if batch == 0 {
        return None;
    }
    let sch = Schedule::new(inp)?;
    let PlanImageLayout {
        pre_split,
        pre_tiles,
        unsplit,
        range,
        len,
    } = PlanImageLayout::of(config);
    let mut img = vec![0i32; len];
    let (mut pa, mut pu) = (0i64, 0i64);
    for (r, &b) in sch.order.iter().enumerate() {
        let (a, u) = sch.parts(b);
        img[pre_split + r] = pa as i32;
        img[pre_tiles + r] = pu as i32;
        img[unsplit + r] = u as i32;
        img[range + 4 * r..range + 4 * r + 4].copy_from_slice(&seq_range(
            qo_indptr,
            kv_indptr,
            b,
            inp.total_q,
            inp.num_kv_indices,
        ));
        pa += a;
        pu += u;
    }
    img[pre_split + batch] = pa as i32;
    img[pre_tiles + batch] = pu as i32;
    let heads = NUM_KV_HEADS as i64;
    img[..PLAN_IMAGE_HEADER].copy_from_slice(&[
        sch.chunk.min(i32::MAX as i64) as i32,
        sch.split_units as i32,
        (sch.split_units as i64 + heads * pu) as i32,
        1,
    ]);
    Some(img)
}

/// Largest batch whose host plan travels in the kernel's parameters
/// (`kInlinePlanMaxBatch`): the CTAs read it with the launch's parameters
/// instead of from device memory, one dependent memory trip fewer before a
/// call's first loads.
pub const INLINE_PLAN_MAX_BATCH: usize = 16;
/// Ints of the inline plan (`kInlinePlanInts`): the image of a plan of
/// [`INLINE_PLAN_MAX_BATCH`] sequences.
pub const INLINE_PLAN_INTS: usize = 124;

/// The plan image `image` (laid out for `config`, [`plan_image`]) of a
/// batch of `batch` sequences in the layout of the kernel's inline plan;
/// `None` above [`INLINE_PLAN_MAX_BATCH`] sequences.
pub fn inline_plan(
    image: &[i32],
    config: TileConfig,
    batch: usize,
) -> Option<[i32; INLINE_PLAN_INTS]> {
    if batch == 0 || batch > INLINE_PLAN_MAX_BATCH {
        return None;
    }
    let from = PlanImageLayout::of(config);
    let to = PlanImageLayout::with_capacity(INLINE_PLAN_MAX_BATCH);
    debug_assert_eq!(to.len, INLINE_PLAN_INTS);
    let mut out = [0i32; INLINE_PLAN_INTS];
    out[..PLAN_IMAGE_HEADER].copy_from_slice(&image[..PLAN_IMAGE_HEADER]);
    for (f, t, n) in [
        (from.pre_split, to.pre_split, batch + 1),
        (from.pre_tiles, to.pre_tiles, batch + 1),
        (from.unsplit, to.unsplit, batch),
        (from.range, to.range, 4 * batch),
    ] {
        out[t..t + n].copy_from_slice(&image[f..f + n]);
    }
    Some(out)
}

/// `(q_start, q_len, kv_start, kv_len)` of sequence `b` as the kernel
/// trusts it (`load_seq`): all zero for a bad range.
fn seq_range(qo: &[i32], kv: &[i32], b: usize, total_q: usize, num_kv_indices: usize) -> [i32; 4] {
    let (q0, q1, k0, k1) = (
        qo[b] as i64,
        qo[b + 1] as i64,
        kv[b] as i64,
        kv[b + 1] as i64,
    );
    if q0 < 0 || q1 < q0 || q1 > total_q as i64 || k0 < 0 || k1 < k0 || k1 > num_kv_indices as i64 {
        [0; 4]
    } else {
        [q0 as i32, (q1 - q0) as i32, k0 as i32, (k1 - k0) as i32]
    }
}

/// Whether the automatic split of this call's plan cuts any tile (the split
/// size alone, without listing the units: what [`UnitPlan::new`] would give
/// as `split_units > 0`).
pub fn plan_splits(inp: &PlanInputs<'_>) -> bool {
    Schedule::new(inp).is_some_and(|s| s.split_units > 0)
}

impl UnitPlan {
    /// The plan the kernel builds for this call.
    pub fn new(inp: &PlanInputs<'_>) -> UnitPlan {
        let heads = NUM_KV_HEADS;
        let Some(sch) = Schedule::new(inp) else {
            return Self::fallback(
                inp.config,
                inp.qo_indptr,
                inp.kv_indptr,
                inp.total_q,
                inp.num_kv_indices,
            );
        };
        let (chunk, split_units) = (sch.chunk, sch.split_units);
        let mut units = Vec::new();
        // Phase 1: chunks of split tiles.
        for &b in &sch.order {
            let s = &sch.shapes[b];
            if chunk == i64::MAX {
                break;
            }
            let first_split = s.unsplit(chunk);
            for m in (first_split..s.tiles()).rev() {
                let n = s.blocks(m);
                let k = ceil_div(n, chunk);
                for c in 0..k {
                    for h in 0..heads {
                        let u = units.len();
                        units.push(Unit {
                            seq: b,
                            kv_head: h,
                            m_block: m as usize,
                            blk_lo: (c * n / k) as usize,
                            blk_hi: ((c + 1) * n / k) as usize,
                            chunk: c as usize,
                            n_chunks: k as usize,
                            slot: Some(u),
                        });
                    }
                }
            }
        }
        debug_assert_eq!(units.len(), split_units);
        // Phase 2: unsplit tiles.
        for &b in &sch.order {
            let s = &sch.shapes[b];
            let (_, unsplit) = sch.parts(b);
            for m in (0..unsplit).rev() {
                for h in 0..heads {
                    units.push(Unit {
                        seq: b,
                        kv_head: h,
                        m_block: m as usize,
                        blk_lo: 0,
                        blk_hi: s.blocks(m) as usize,
                        chunk: 0,
                        n_chunks: 1,
                        slot: None,
                    });
                }
            }
        }
        UnitPlan {
            config: inp.config,
            chunk,
            split_units,
            units,
            planned: true,
        }
    }

    /// Batches above [`plan_max_batch`]: tiles in the fixed numbering of
    /// [`crate::schedule::tile_start`], last tile first, nothing split.
    fn fallback(
        config: TileConfig,
        qo: &[i32],
        kv: &[i32],
        total_q: usize,
        num_kv_indices: usize,
    ) -> UnitPlan {
        let batch = qo.len() - 1;
        let (bm, bn) = (config.block_m(), config.block_n());
        let tph = tiles_per_head(total_q, batch, bm);
        let mut units = Vec::new();
        for linear in 0..tph * NUM_KV_HEADS {
            let h = linear % NUM_KV_HEADS;
            let t = tph - 1 - linear / NUM_KV_HEADS;
            // Last b with tile_start(b) <= t.
            let b = (0..batch)
                .rev()
                .find(|&b| crate::schedule::tile_start(qo[b].max(0) as usize, b, bm) <= t)
                .unwrap_or(0);
            let (q_len, kv_len) = seq_lens(qo, kv, b, total_q, num_kv_indices);
            let ts = crate::schedule::tile_start(qo[b].max(0) as usize, b, bm);
            let mb = t - ts;
            let s = SeqShape {
                q_len,
                kv_len,
                bm: bm as i64,
                bn: bn as i64,
            };
            if (mb as i64) >= s.tiles() {
                continue; // spare tile
            }
            units.push(Unit {
                seq: b,
                kv_head: h,
                m_block: mb,
                blk_lo: 0,
                blk_hi: s.blocks(mb as i64) as usize,
                chunk: 0,
                n_chunks: 1,
                slot: None,
            });
        }
        UnitPlan {
            config,
            chunk: i64::MAX,
            split_units: 0,
            units,
            planned: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shapes() -> Vec<SeqShape> {
        let mut v = Vec::new();
        for (bm, bn) in [(128, 128), (64, 64), (128, 64), (64, 128), (192, 64)] {
            for q in [
                0i64, 1, 2, 5, 10, 11, 21, 22, 43, 64, 100, 128, 129, 300, 1307,
            ] {
                for extra in [-400i64, -q, -5, -1, 0, 1, 7, 64, 127, 128, 1000, 5000] {
                    let kv = (q + extra).max(0);
                    v.push(SeqShape {
                        q_len: q,
                        kv_len: kv,
                        bm,
                        bn,
                    });
                }
            }
        }
        v
    }

    #[test]
    fn closed_forms_match_brute_force() {
        for s in shapes() {
            let t = s.tiles();
            let n: Vec<i64> = (0..t).map(|m| s.blocks(m)).collect();
            assert!(n.windows(2).all(|w| w[0] <= w[1]), "{s:?}");
            if t > 0 {
                assert_eq!(n[t as usize - 1], s.max_blocks(), "{s:?}");
            }
            assert_eq!(s.total_blocks(), n.iter().sum::<i64>(), "{s:?}");
            for j in 0..s.max_blocks() {
                let first = n.iter().position(|&x| x > j).unwrap() as i64;
                assert_eq!(s.first_tile(j), first, "{s:?} j={j}");
            }
            for c in 1..20 {
                let unsplit = n.iter().filter(|&&x| x <= c).count() as i64;
                assert_eq!(s.unsplit(c), unsplit, "{s:?} c={c}");
                let chunks: i64 = n.iter().filter(|&&x| x > c).map(|&x| ceil_div(x, c)).sum();
                assert_eq!(s.split_chunks(c), chunks, "{s:?} c={c}");
            }
        }
    }

    #[test]
    fn sum_clamped_matches_brute_force() {
        for a in 1..8 {
            for c in -20..20 {
                for n in 0..15 {
                    for h in 0..12 {
                        let want: i64 = (0..n).map(|i| (a * i + c).clamp(0, h)).sum();
                        assert_eq!(sum_clamped(a, c, n, h), want, "a={a} c={c} n={n} h={h}");
                    }
                }
            }
        }
    }

    /// Every visible key block of every tile and head is covered by exactly
    /// one unit; tiles without keys appear once with an empty range; chunks
    /// of a tile agree on their count and use distinct slots in range.
    fn check_cover(plan: &UnitPlan, qo: &[i32], kv: &[i32], total_q: usize, slots: usize) {
        use std::collections::HashMap;
        let batch = qo.len() - 1;
        let nki = *kv.last().unwrap() as usize;
        let (bm, bn) = (plan.config.block_m() as i64, plan.config.block_n() as i64);
        // (seq, kv head, tile) -> its units' (first block, end block, chunks)
        type Parts = Vec<(usize, usize, usize)>;
        let mut seen: HashMap<(usize, usize, usize), Parts> = HashMap::new();
        let mut used_slots = std::collections::HashSet::new();
        for (i, u) in plan.units.iter().enumerate() {
            seen.entry((u.seq, u.kv_head, u.m_block))
                .or_default()
                .push((u.blk_lo, u.blk_hi, u.n_chunks));
            if u.n_chunks > 1 {
                let s = u.slot.expect("split unit without slot");
                assert_eq!(s, i);
                assert!(s < slots && used_slots.insert(s));
                assert!(i < plan.split_units);
            } else {
                assert!(u.slot.is_none());
            }
        }
        for b in 0..batch {
            let (q_len, kv_len) = seq_lens(qo, kv, b, total_q, nki);
            let s = SeqShape {
                q_len,
                kv_len,
                bm,
                bn,
            };
            for m in 0..s.tiles() {
                for h in 0..NUM_KV_HEADS {
                    let mut parts = seen
                        .remove(&(b, h, m as usize))
                        .unwrap_or_else(|| panic!("tile b={b} m={m} h={h} missing"));
                    parts.sort();
                    let k = parts.len();
                    assert!(parts.iter().all(|p| p.2 == k), "{parts:?}");
                    let mut next = 0;
                    for p in &parts {
                        assert_eq!(p.0, next, "{parts:?}");
                        assert!(p.1 > p.0 || k == 1, "{parts:?}");
                        next = p.1;
                    }
                    assert_eq!(next as i64, s.blocks(m), "b={b} m={m}");
                }
            }
        }
        assert!(seen.is_empty(), "units outside any tile: {seen:?}");
    }

    /// The kernel's `decode_unit` on a host-made plan image, unit by unit,
    /// gives the units of [`UnitPlan::new`] in the same order.
    /// `layout`: the image's (the configuration's, or the inline plan's).
    fn check_image(
        plan: &UnitPlan,
        img: &[i32],
        layout: PlanImageLayout,
        qo: &[i32],
        kv: &[i32],
        total_q: usize,
    ) {
        let config = plan.config;
        let batch = qo.len() - 1;
        let nki = *kv.last().unwrap() as usize;
        let PlanImageLayout {
            pre_split,
            pre_tiles,
            unsplit,
            range,
            ..
        } = layout;
        let (chunk, n_split, n_units) = (img[0] as i64, img[1] as usize, img[2] as usize);
        assert_eq!(img[3], 1);
        assert_eq!(n_units, plan.units.len());
        assert_eq!(n_split, plan.split_units);
        // Largest r < batch with a[r] <= v (a nondecreasing, a[0] = 0).
        let last_le = |a: usize, v: i32| (0..batch).rev().find(|&r| img[a + r] <= v).unwrap();
        for (u, want) in plan.units.iter().enumerate() {
            let split = u < n_split;
            let v = ((if split { u } else { u - n_split }) / NUM_KV_HEADS) as i32;
            let rank = last_le(if split { pre_split } else { pre_tiles }, v);
            let r = &img[range + 4 * rank..range + 4 * rank + 4];
            assert_eq!(r, &seq_range(qo, kv, want.seq, total_q, nki), "unit {u}");
            let s = SeqShape {
                q_len: r[1] as i64,
                kv_len: r[3] as i64,
                bm: config.block_m() as i64,
                bn: config.block_n() as i64,
            };
            let (m, lo, hi, j, k) = if split {
                let mut j = (v - img[pre_split + rank]) as i64;
                let mut m = s.tiles() - 1;
                let mut n = s.blocks(m);
                let mut k = ceil_div(n, chunk);
                while j >= k {
                    j -= k;
                    m -= 1;
                    n = s.blocks(m);
                    k = ceil_div(n, chunk);
                }
                (m, j * n / k, (j + 1) * n / k, j, k)
            } else {
                let m = (img[unsplit + rank] - 1 - (v - img[pre_tiles + rank])) as i64;
                (m, 0, s.blocks(m), 0, 1)
            };
            let got = Unit {
                seq: want.seq,
                kv_head: u % NUM_KV_HEADS,
                m_block: m as usize,
                blk_lo: lo as usize,
                blk_hi: hi as usize,
                chunk: j as usize,
                n_chunks: k as usize,
                slot: split.then_some(u),
            };
            assert_eq!(&got, want, "unit {u}");
        }
    }

    fn lens_to_indptr(lens: &[usize]) -> Vec<i32> {
        let mut v = vec![0i32];
        for l in lens {
            v.push(v.last().unwrap() + *l as i32);
        }
        v
    }

    #[test]
    fn plans_cover_every_tile_once() {
        let (mut images, mut inlined) = (0, 0);
        let mut rng = 0x1234_5678_u64;
        let mut next = |m: u64| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng % m
        };
        for case in 0..400 {
            let batch = 1 + next(match case % 50 {
                0 => 1500,
                1 => 800,
                _ => 12,
            }) as usize;
            let q: Vec<usize> = (0..batch)
                .map(|_| match next(4) {
                    0 => 0,
                    1 => next(8) as usize,
                    _ => next(700) as usize,
                })
                .collect();
            let k: Vec<usize> = q
                .iter()
                .map(|&x| match next(4) {
                    0 => x,
                    1 => x + next(2000) as usize,
                    2 => x.saturating_sub(next(50) as usize),
                    _ => next(100) as usize,
                })
                .collect();
            let qo = lens_to_indptr(&q);
            let kv = lens_to_indptr(&k);
            let total_q = *qo.last().unwrap() as usize;
            let nki = *kv.last().unwrap() as usize;
            for config in TileConfig::ALL {
                for split in [
                    SplitPolicy::Auto,
                    SplitPolicy::Never,
                    SplitPolicy::Blocks(1),
                    SplitPolicy::Blocks(3),
                ] {
                    for (grid, slots) in [(132, 264), (264, 528), (7, 3)] {
                        let inp = PlanInputs {
                            config,
                            qo_indptr: &qo,
                            kv_indptr: &kv,
                            total_q,
                            num_kv_indices: nki,
                            grid,
                            split,
                            partial_slots: slots,
                        };
                        let plan = UnitPlan::new(&inp);
                        assert!(plan.split_units <= slots);
                        check_cover(&plan, &qo, &kv, total_q, slots);
                        let img = plan_image(&inp);
                        assert_eq!(img.is_some(), plan.planned);
                        if let Some(img) = img {
                            check_image(
                                &plan,
                                &img,
                                PlanImageLayout::of(config),
                                &qo,
                                &kv,
                                total_q,
                            );
                            images += 1;
                            // A small batch's plan, as the parameters carry it.
                            let batch = qo.len() - 1;
                            let inline = inline_plan(&img, config, batch);
                            assert_eq!(inline.is_some(), batch <= INLINE_PLAN_MAX_BATCH);
                            if let Some(inline) = inline {
                                let layout = PlanImageLayout::with_capacity(INLINE_PLAN_MAX_BATCH);
                                assert_eq!(layout.len, INLINE_PLAN_INTS);
                                check_image(&plan, &inline, layout, &qo, &kv, total_q);
                                inlined += 1;
                            }
                        }
                    }
                }
            }
        }
        assert!(images > 1000, "{images} plan images checked");
        assert!(inlined > 100, "{inlined} inline plans checked");
    }

    #[test]
    fn auto_split_only_where_it_pays() {
        // One m128 sequence on 132 CTAs with 528 merge slots.
        let one = |qo: &[i32], kv: &[i32]| {
            UnitPlan::new(&PlanInputs {
                config: TileConfig::M128,
                qo_indptr: qo,
                kv_indptr: kv,
                total_q: qo[1] as usize,
                num_kv_indices: kv[1] as usize,
                grid: 132,
                split: SplitPolicy::Auto,
                partial_slots: 528,
            })
        };
        // 1307 tokens: the longest tile has 11 blocks, two chunks would be
        // shorter than 2 * MIN_CHUNK_KEYS keys: nothing split.
        let qo = [0, 1307];
        let plan = one(&qo, &qo);
        assert_eq!(plan.split_units, 0);
        // A cached prefix: 100 queries over 8000 keys give 20 tiles of 63
        // blocks on 132 CTAs. Estimates (blocks): whole 64; 2 chunks 37; 3:
        // 26; 4: 21; 6 (of 11 blocks, 120 units, one per CTA): 16; 8 (160
        // units, two per CTA): 25; 12 chunks would be under 8 blocks.
        let qo = [0, 100];
        let kv = [0, 8000];
        let plan = one(&qo, &kv);
        assert_eq!(plan.chunk, 11);
        assert_eq!(plan.split_units, 120);
        assert!(plan
            .units
            .iter()
            .all(|u| (u.blk_hi - u.blk_lo) as i64 <= plan.chunk));
        assert!(plan.units.iter().all(|u| u.n_chunks as i64 <= MAX_CHUNKS));
        // Split units first.
        assert!(plan.units[..plan.split_units]
            .iter()
            .all(|u| u.n_chunks > 1));
        assert!(plan.units[plan.split_units..]
            .iter()
            .all(|u| u.n_chunks == 1));
        // With too few merge slots for that split, the best that fits.
        let plan = UnitPlan::new(&PlanInputs {
            partial_slots: 100,
            ..PlanInputs {
                config: TileConfig::M128,
                qo_indptr: &qo,
                kv_indptr: &kv,
                total_q: 100,
                num_kv_indices: 8000,
                grid: 132,
                split: SplitPolicy::Auto,
                partial_slots: 0,
            }
        });
        assert_eq!((plan.chunk, plan.split_units), (16, 80));
    }

    #[test]
    fn max_units_bounds_the_spread_candidates_only_where_they_can_be() {
        use crate::problem::Dims;
        // One sequence of 559 tokens (5 key blocks of 128): no split can
        // reach the spread merge's 9 chunks, so the bound stays the tiles
        // (the direct entry point).
        let d = Dims::new(559, 559, 1, 559);
        let tiles = 4 * tiles_per_head(559, 1, 128) as u64;
        assert_eq!(
            max_units(TileConfig::M128Deep, &d, SplitPolicy::Auto, 132),
            tiles
        );
        // One query over 32768 keys on m64: 64 chunks of 512 keys a tile.
        let d = Dims::new(1, 32768, 1, 32768);
        assert_eq!(
            max_units(TileConfig::M64, &d, SplitPolicy::Auto, 264),
            4 * 64
        );
        // 4096 keys (64 blocks of 64), one query: the row split's 32 chunks
        // a tile bound it (chunks of ONE_WAVE_MIN_CHUNK_KEYS would be 16).
        let d = Dims::new(1, 4096, 1, 4096);
        assert_eq!(
            max_units(TileConfig::M64, &d, SplitPolicy::Auto, 264),
            4 * 32
        );
        // Three queries a sequence (18 rows, merged by fragments): seven
        // chunks of its 4 tiles fit one wave of ROW_SPLIT_MAX_UNITS, so the
        // spread fine split's chunks of one block bound it (128 units),
        // and on a grid they would not fit, chunks of 1024 keys.
        let d = Dims::new(3, 4096, 1, 4096);
        assert_eq!(
            max_units(TileConfig::M64, &d, SplitPolicy::Auto, 264),
            ROW_SPLIT_MAX_UNITS as u64
        );
        assert_eq!(max_units(TileConfig::M64, &d, SplitPolicy::Auto, 7), 4 * 4);
        // 640 keys, three queries: no chunk of 256 keys and its cost in one
        // wave is shorter than the tile, so the call stays direct on the
        // 128-row tiles, while m64's spread fine split may cut its 10
        // blocks into chunks of one; 768 keys: chunks of 256 keys bound the
        // 128-row tiles; one query: the row split's chunks of one block.
        // (m64 on 264 CTAs, m128dv on 132) for one sequence of q over kv.
        let both = |q: usize, kv: usize| {
            let d = Dims::new(q, kv, 1, kv);
            (
                max_units(TileConfig::M64, &d, SplitPolicy::Auto, 264),
                max_units(TileConfig::M128DeepV, &d, SplitPolicy::Auto, 132),
            )
        };
        assert_eq!(both(3, 640), (4 * 10, 4));
        assert_eq!(both(3, 768), (4 * 12, 4 * 3));
        assert_eq!(both(1, 768), (4 * 12, 4 * 6));
        let d = Dims::new(1, 768, 1, 768);
        // Forced splits and `never` are bounded by their own chunks.
        assert_eq!(max_units(TileConfig::M64, &d, SplitPolicy::Never, 264), 4);
        assert!(
            fine_split_possible(TileConfig::M64, 11) && !fine_split_possible(TileConfig::M64, 10)
        );
        assert!(fine_split_possible(TileConfig::M128DeepV, 6));
        assert!(!fine_split_possible(TileConfig::M128DeepV, 5));
    }

    /// The automatic split's plan of a call on `resident` CTAs, on the grid
    /// the launch takes (`resident`, or fewer where [`max_units`] bounds it).
    fn auto_plan(
        config: TileConfig,
        resident: u64,
        partial_slots: usize,
        qo: &[i32],
        kv: &[i32],
    ) -> UnitPlan {
        let (tq, nk) = (*qo.last().unwrap() as usize, *kv.last().unwrap() as usize);
        let d = crate::problem::Dims::new(tq, nk, qo.len() - 1, nk);
        let grid = max_units(config, &d, SplitPolicy::Auto, resident).min(resident) as usize;
        UnitPlan::new(&PlanInputs {
            config,
            qo_indptr: qo,
            kv_indptr: kv,
            total_q: tq,
            num_kv_indices: nk,
            grid,
            split: SplitPolicy::Auto,
            partial_slots,
        })
    }
    /// The most chunks of any tile of a plan.
    fn most_chunks(p: &UnitPlan) -> usize {
        p.units.iter().map(|u| u.n_chunks).max().unwrap_or(0)
    }

    #[test]
    fn one_wave_calls_cut_short_tiles_finer() {
        // m128dv on 132 CTAs (528 merge slots).
        let plan = |qo: &[i32], kv: &[i32]| auto_plan(TileConfig::M128DeepV, 132, 528, qo, kv);
        let chunks = most_chunks;
        // One query over 4000 keys (32 blocks): the row split's 32 chunks
        // of one block a tile, 128 units (ROW_SPLIT_MAX_UNITS); chunks of
        // 1024 keys before the one-wave split, 256 before the row split.
        let p = plan(&[0, 1], &[0, 4000]);
        assert_eq!((p.chunk, chunks(&p), p.units.len()), (1, 32, 128));
        // One query over 1300 keys (11 blocks): 11 chunks of one block;
        // three queries (merged by fragments): 6 chunks of 256 keys.
        let p = plan(&[0, 1], &[0, 1300]);
        assert_eq!((p.chunk, chunks(&p), p.units.len()), (1, 11, 44));
        let p = plan(&[0, 3], &[0, 1300]);
        assert_eq!((p.chunk, chunks(&p), p.units.len()), (2, 6, 24));
        // 15 queries over 384 keys: a chunk's cost is more than the tile's
        // blocks beyond one chunk: unsplit.
        let p = plan(&[0, 15], &[0, 384]);
        assert_eq!((p.chunk, p.units.len()), (i64::MAX, 4));
        // Ten queries over 742 keys (6 blocks): with a one-wave chunk at 3
        // blocks, 3 chunks of 256 keys (unsplit at 4: 18.7 -> 15.8 us on
        // the H200, twenty-fourth session); 640 keys (5 blocks): unsplit.
        let p = plan(&[0, 10], &[0, 742]);
        assert_eq!((p.chunk, chunks(&p), p.units.len()), (2, 3, 12));
        let p = plan(&[0, 10], &[0, 640]);
        assert_eq!((p.chunk, p.units.len()), (i64::MAX, 4));
        // 14 queries over 2087 keys (17 blocks): 6 chunks of 384 keys, not
        // the spread merge's 9 of 256 (its chunk of a full tile costs 4).
        let p = plan(&[0, 14], &[0, 2087]);
        assert_eq!((p.chunk, chunks(&p)), (3, 6));
        // Four sequences of 14 queries over 1600 keys (16 tiles of 13
        // blocks): 7 chunks each, 112 units, one wave.
        let p = plan(&[0, 14, 28, 42, 56], &[0, 1600, 3200, 4800, 6400]);
        assert_eq!((p.chunk, chunks(&p), p.units.len()), (2, 7, 112));
        assert!(p.units.len() <= 132);
        // 48 sequences of 4 queries over 1536 keys: 192 tiles, more than a
        // wave: nothing split.
        let qo: Vec<i32> = (0..=48).map(|i| 4 * i).collect();
        let kv: Vec<i32> = (0..=48).map(|i| 1536 * i).collect();
        let p = plan(&qo, &kv);
        assert_eq!((p.chunk, p.units.len()), (i64::MAX, 192));
    }

    /// The host plan's launch of a call on `resident` CTAs (528 merge
    /// slots): the shape-only launch, then [`planned_launch`]; also the
    /// shape-only launch's grid and whether it was direct.
    fn host_launch(
        config: TileConfig,
        resident: u64,
        qo: &[i32],
        kv: &[i32],
    ) -> (PlannedLaunch, u64, bool) {
        let (tq, nk) = (*qo.last().unwrap() as usize, *kv.last().unwrap() as usize);
        let d = crate::problem::Dims::new(tq, nk, qo.len() - 1, nk);
        let (grid, direct) = launch_grid(config, &d, SplitPolicy::Auto, resident).unwrap();
        let inp = PlanInputs {
            config,
            qo_indptr: qo,
            kv_indptr: kv,
            total_q: tq,
            num_kv_indices: nk,
            grid: grid as usize,
            split: SplitPolicy::Auto,
            partial_slots: 528,
        };
        let launch = planned_launch(&inp, direct, resident);
        // A persistent launch takes the plan made for its grid.
        if !launch.direct {
            assert_eq!((launch.grid, &launch.image), (grid, &plan_image(&inp)));
        }
        (launch, grid, direct)
    }

    #[test]
    fn unsplit_host_plans_launch_direct() {
        let m128dv = TileConfig::M128DeepV;
        // 8 sequences of 15 queries over 384 keys: the shapes allow a split
        // (a persistent grid), the plan splits nothing: the direct entry on
        // a CTA per tile (13 a head by the shapes), its image inline and
        // unsplit.
        let qo: Vec<i32> = (0..=8).map(|i| 15 * i).collect();
        let kv: Vec<i32> = (0..=8).map(|i| 384 * i).collect();
        let (l, grid, direct) = host_launch(m128dv, 132, &qo, &kv);
        assert!(!direct && grid > 52, "the shapes alone allow a split");
        assert_eq!((l.grid, l.direct), (52, true));
        let img = l.image.expect("a batch of one takes its image inline");
        assert_eq!(&img[..2], &[i32::MAX, 0]);
        // Ten queries over 742 keys: split into 3 chunks: persistent.
        let (l, _, _) = host_launch(m128dv, 132, &[0, 10], &[0, 742]);
        assert!(!l.direct && l.image.is_some_and(|img| img[1] == 12));
        // 48 sequences of 4 queries over 1536 keys: nothing split, but 192
        // tiles overflow 132 CTAs: persistent, with its image.
        let qo: Vec<i32> = (0..=48).map(|i| 4 * i).collect();
        let kv: Vec<i32> = (0..=48).map(|i| 1536 * i).collect();
        let (l, grid, _) = host_launch(m128dv, 132, &qo, &kv);
        assert!(!l.direct && grid == 132 && l.image.is_some());
        // 24 sequences of 8 queries over 384 keys: 96 unsplit tiles, 132
        // by the shapes (33 a head), on 132 CTAs: direct, no image (above
        // the inline plan's batch).
        let qo: Vec<i32> = (0..=24).map(|i| 8 * i).collect();
        let kv: Vec<i32> = (0..=24).map(|i| 384 * i).collect();
        let (l, _, _) = host_launch(m128dv, 132, &qo, &kv);
        assert_eq!((l.grid, l.direct, l.image), (132, true, None));
        // 19 queries a sequence: 180 tiles by the shapes, more than 132
        // CTAs: persistent, with its image.
        let qo: Vec<i32> = (0..=24).map(|i| 19 * i).collect();
        let kv: Vec<i32> = (0..=24).map(|i| 100 * i).collect();
        let (l, grid, _) = host_launch(m128dv, 132, &qo, &kv);
        assert!(!l.direct && grid == 132 && l.image.is_some());
    }

    #[test]
    fn the_row_split_cuts_few_decode_tiles_into_blocks() {
        // m64 on its 264 CTAs (1056 merge slots).
        let plan = |qo: &[i32], kv: &[i32]| auto_plan(TileConfig::M64, 264, 1056, qo, kv);
        let chunks = most_chunks;
        // Three sequences of one query over 512 keys (8 blocks): a chunk a
        // block, 96 units.
        let p = plan(&[0, 1, 2, 3], &[0, 512, 1024, 1536]);
        assert_eq!((p.chunk, chunks(&p), p.units.len()), (1, 8, 96));
        // One query over 4000 keys (63 blocks): 32 chunks of two blocks
        // (ROW_SPLIT_MAX_CHUNKS), 128 units.
        let p = plan(&[0, 1], &[0, 4000]);
        assert_eq!((p.chunk, chunks(&p), p.units.len()), (2, 32, 128));
        // 16 sequences of one query over 256 keys (4 blocks): a chunk and
        // its cost are longer than the tile: unsplit.
        let qo: Vec<i32> = (0..=16).collect();
        let kv: Vec<i32> = (0..=16).map(|i| 256 * i).collect();
        let p = plan(&qo, &kv);
        assert_eq!((p.chunk, p.units.len()), (i64::MAX, 64));
        // 16 sequences over 1024 keys (64 tiles): chunks finer than
        // ONE_WAVE_MIN_CHUNK_KEYS would make more than ROW_SPLIT_MAX_UNITS
        // units, so the one-wave split's chunks of 256 keys.
        let kv: Vec<i32> = (0..=16).map(|i| 1024 * i).collect();
        let p = plan(&qo, &kv);
        assert_eq!((p.chunk, chunks(&p), p.units.len()), (4, 4, 256));
        // Three queries (18 rows, merged by fragments): no row split, but
        // the spread fine split (8 chunks of a block a tile, 96 units);
        // over 384 keys (6 blocks) neither: unsplit.
        let p = plan(&[0, 3, 6, 9], &[0, 512, 1024, 1536]);
        assert_eq!((p.chunk, chunks(&p), p.units.len()), (1, 8, 96));
        assert!(spread_fine_possible(TileConfig::M64, 8, 3));
        let p = plan(&[0, 3, 6, 9], &[0, 384, 768, 1152]);
        assert_eq!((p.chunk, p.units.len()), (i64::MAX, 12));
        assert!(
            row_split_possible(TileConfig::M64, 8, 2) && !row_split_possible(TileConfig::M64, 7, 2)
        );
        assert!(!row_split_possible(TileConfig::M64, 8, 3));
        assert!(row_split_possible(TileConfig::M128DeepV, 5, 1));
        assert!(!row_split_possible(TileConfig::M128DeepV, 4, 1));
        assert!(!row_split_possible(TileConfig::M192, 64, 1));
    }

    #[test]
    fn the_short_fine_split_cuts_short_tiles_of_many_rows() {
        let plan = |qo: &[i32], kv: &[i32]| auto_plan(TileConfig::M64, 264, 1056, qo, kv);
        // Three sequences of 12 queries (72 rows, two tiles each) over 560
        // keys (9 blocks): too short for the fine split, too many units for
        // the spread fine split; chunks of three blocks, 72 units.
        let p = plan(&[0, 12, 24, 36], &[0, 560, 1120, 1680]);
        assert_eq!((p.chunk, most_chunks(&p), p.units.len()), (3, 3, 72));
        assert!(short_fine_possible(TileConfig::M64, 9, 12));
        // Over 448 keys (7 blocks): unsplit.
        let p = plan(&[0, 12, 24, 36], &[0, 448, 896, 1344]);
        assert_eq!((p.chunk, p.units.len()), (i64::MAX, 24));
        assert!(!short_fine_possible(TileConfig::M64, 7, 12));
        // Not for the fine split's tiles, rows merged by rows, or 128-row tiles.
        assert!(!short_fine_possible(TileConfig::M64, 11, 12));
        assert!(!short_fine_possible(TileConfig::M64, 9, 2));
        assert!(!short_fine_possible(TileConfig::M128DeepV, 5, 12));
        // Where two chunks of every tile overflow the wave, the launch
        // bound does not count them: seed07's 212 tiles over 559 keys stay direct.
        let dims = crate::problem::Dims::new(559, 559, 1, 559);
        assert_eq!(
            launch_grid(TileConfig::M64, &dims, SplitPolicy::Auto, 264),
            Some((212, true))
        );
    }

    #[test]
    fn decode_like_tiles_take_more_chunks() {
        // m64 (1056 merge slots): one sequence of few queries over a long
        // key range is 4 tiles, one per kv head.
        let plan = |q: i32, kv: i32, grid: usize| {
            UnitPlan::new(&PlanInputs {
                config: TileConfig::M64,
                qo_indptr: &[0, q],
                kv_indptr: &[0, kv],
                total_q: q as usize,
                num_kv_indices: kv as usize,
                grid,
                split: SplitPolicy::Auto,
                partial_slots: 1056,
            })
        };
        let chunks = |p: &UnitPlan| p.units.iter().map(|u| u.n_chunks).max().unwrap_or(0);
        // One query over 32768 keys (512 blocks): one wave of 256 units, so
        // the spread merge: 64 chunks of 512 keys.
        let p = plan(1, 32768, 264);
        assert_eq!((p.chunk, chunks(&p), p.units.len()), (8, 64, 256));
        // Over 65536 keys: 64 chunks, the most a tile takes.
        assert_eq!(chunks(&plan(2, 65536, 264)), 64);
        // 8 queries (48 rows): 64 chunks with the spread merge too.
        let p = plan(8, 65536, 264);
        assert_eq!((p.chunk, chunks(&p)), (16, 64));
        // On a grid that 256 units overflow, no spread merge: chunks of at
        // least 1024 keys, and at most 32 of them where a tile is merged by
        // fragments.
        let p = plan(1, 32768, 132);
        assert_eq!((p.chunk, chunks(&p), p.units.len()), (16, 32, 128));
        let p = plan(8, 65536, 132);
        assert_eq!((p.chunk, chunks(&p)), (32, 32));
        assert_eq!(max_chunks(2), MAX_CHUNKS);
        assert_eq!(max_chunks(3), MAX_CHUNKS_BY_FRAGMENTS);
    }

    /// Shapes that pass validation but no GPU's memory holds (10^8 queries
    /// over 2 * 10^9 keys): the split search's estimate used to overflow
    /// there (a panic in a debug build, whose overflow checks this test
    /// needs to see it; `cargo test -p pagedattn --lib`).
    #[test]
    fn huge_shapes_plan_without_overflow() {
        let cases: [(&[i32], &[i32]); 4] = [
            (&[0, 170_000_000], &[0, 2_000_000_000]),
            (&[0, 1, 170_000_000], &[0, 1_000_000_000, 2_000_000_000]),
            (
                &[0, 70_000_000, 78_000_000],
                &[0, 1_000_000_000, 2_000_000_000],
            ),
            (&[0, 1, 2], &[0, 1_000_000_000, 2_000_000_000]),
        ];
        for (qo, kv) in cases {
            let (total_q, keys) = (*qo.last().unwrap() as usize, *kv.last().unwrap() as usize);
            let dims = crate::problem::Dims::new(total_q, 100_000_000, qo.len() - 1, keys);
            assert!(crate::schedule::HostPlan::new(&dims, qo, kv, None).is_ok());
            for config in TileConfig::ALL {
                let resident = if config == TileConfig::M64 { 264 } else { 132 };
                let (grid, _) = launch_grid(config, &dims, SplitPolicy::Auto, resident).unwrap();
                let img = plan_image(&PlanInputs {
                    config,
                    qo_indptr: qo,
                    kv_indptr: kv,
                    total_q,
                    num_kv_indices: keys,
                    grid: grid as usize,
                    split: SplitPolicy::Auto,
                    partial_slots: merge_slots(config, 132),
                });
                assert!(img.is_some(), "{}", config.name());
            }
        }
    }
}
