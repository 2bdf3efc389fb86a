//! How the work is cut into tiles. Shared by the host and `kernels/attention.cu`
//! (which computes the same mapping on the device from `qo_indptr`).
//!
//! GQA packing: the 6 query heads that share a kv head are laid out as
//! consecutive rows, token-major: packed row `r` of a sequence is token `r / 6`,
//! query head `kv_head * 6 + r % 6`. A tile is `block_m` packed rows of one
//! sequence and one kv head; it loads each key/value row once for all 6 heads.
//!
//! Tiles of all sequences are numbered without knowing the sequence lengths on
//! the host: sequence `b` owns tiles `tile_start(b) .. tile_start(b + 1)` with
//! `tile_start(b) = floor(6 * qo_indptr[b] / block_m) + b`. That range always
//! holds the `ceil(6 * q_len / block_m)` tiles the sequence needs (at most one
//! spare, which exits at once), so the grid size depends only on `total_q` and
//! `batch`, both known from the shapes: no host synchronisation, and a captured
//! graph stays valid when the indptr contents change.

use crate::problem::GROUP_SIZE;

/// The kernel configurations (tile shapes) the CUDA backend has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum TileConfig {
    /// 128 packed rows x 128-key blocks, two consumer warpgroups, one CTA per
    /// SM, 2-deep K and V rings and two Q slots (plans up to 1024
    /// sequences): least K/V traffic per FLOP, for batches of more than
    /// [`M128_DEEP_MAX_BATCH`] sequences with many keys.
    M128,
    /// `M128` with a 3-deep K/V ring and one Q slot (plans up to 64
    /// sequences): each block's K and V leave two steps before their use
    /// instead of one, and the next unit's Q loads only after this unit's
    /// epilogue. For calls whose units are long ([`M128_DEEP_MIN_KEYS`]).
    M128Deep,
    /// `M128` with a 3-deep V ring, a 2-deep K ring and two Q slots (plans up
    /// to 64 sequences): V, read a step after K, keeps the third stage, and
    /// the next unit's Q loads under the current one. For batches of up to
    /// 64 sequences whose units are shorter than `M128Deep`'s.
    M128DeepV,
    /// 64 packed rows x 64-key blocks, one consumer warpgroup, two CTAs per SM,
    /// persistent (each CTA walks many tiles, loading the next tile's Q and
    /// first key blocks under the current one): for batches of short sequences.
    M64,
    /// 192 packed rows x 64-key blocks, three consumer warpgroups taking
    /// turns at the tensor cores, `M128Deep`'s 3-deep K/V ring and one Q slot
    /// (plans up to 64 sequences): each K/V block is read once for 192 rows
    /// instead of 128, a third fewer K/V bytes per FLOP. For calls of few
    /// query rows over long cached prefixes, where those bytes set the time
    /// ([`TileConfig::prefers_m192`]).
    M192,
}

impl TileConfig {
    /// Every configuration.
    pub const ALL: [TileConfig; 5] = [
        TileConfig::M128,
        TileConfig::M128Deep,
        TileConfig::M128DeepV,
        TileConfig::M64,
        TileConfig::M192,
    ];

    /// The configuration's name as the CLI, the tests' `PAGEDATTN_TILE` and
    /// the Python package spell it: `m128`, `m128d`, `m128dv`, `m64` or
    /// `m192`.
    pub fn name(self) -> &'static str {
        match self {
            TileConfig::M128 => "m128",
            TileConfig::M128Deep => "m128d",
            TileConfig::M128DeepV => "m128dv",
            TileConfig::M64 => "m64",
            TileConfig::M192 => "m192",
        }
    }

    /// Packed rows per tile.
    pub fn block_m(self) -> usize {
        match self {
            TileConfig::M128 | TileConfig::M128Deep | TileConfig::M128DeepV => 128,
            TileConfig::M64 => 64,
            TileConfig::M192 => 192,
        }
    }
    /// Keys per inner step.
    pub fn block_n(self) -> usize {
        match self {
            TileConfig::M128 | TileConfig::M128Deep | TileConfig::M128DeepV => 128,
            TileConfig::M64 | TileConfig::M192 => 64,
        }
    }
    /// Consumer warpgroups (64 packed rows each) of a CTA.
    pub fn consumer_warpgroups(self) -> usize {
        self.block_m() / 64
    }

    /// The configuration for a call, from what the host knows without reading
    /// device memory: the mean query and key counts per sequence
    /// (`total_q / batch`, `num_kv_indices / batch`). A tile's work is its
    /// rows times its keys: with few keys per sequence it is mostly load
    /// latency, which the persistent two-CTAs-per-SM configuration hides;
    /// with many it is math and K/V traffic, which 128-row tiles halve, even
    /// for short queries over a long cached prefix (from 16 queries, 96 of a
    /// tile's 128 rows).
    ///
    /// One sequence alone is held by its longest tiles, not by the GPU's
    /// throughput: m64's finer tiles fill the SMs its m128 tiles leave idle
    /// up to longer sequences ([`M64_MAX_SINGLE_KV_LEN`]; two sequences,
    /// [`M64_MAX_PAIR_MEAN_KV_LEN`]), and over a cached prefix of up to
    /// [`M64_FEW_TILES_MAX_KV_LEN`] keys wherever the 128-row plan would have
    /// at most [`M64_FEW_TILES128_MAX`] tiles.
    ///
    /// Among the 128-row configurations, from a tile's mean key range (the
    /// mean keys per sequence less half the mean queries): `M128Deep` from
    /// [`M128_DEEP_MIN_KEYS`] up and for one sequence below
    /// [`SINGLE_M128_DEEP_V_MIN_KEYS`], else `M128DeepV`; `M128` for
    /// batches larger than the deep rings' plans ([`M128_DEEP_MAX_BATCH`]);
    /// `M192` before them where [`TileConfig::prefers_m192`] says so, which
    /// needs every sequence's lengths: from the means alone, only for one
    /// sequence ([`HostPlan`] has them all). Below [`M128_MIN_MEAN_Q_LEN`]
    /// queries a sequence (decode-like calls), `M128DeepV` where
    /// [`decode_prefers_m128dv`] says so, else `M64`.
    pub fn choose(total_q: usize, num_kv_indices: usize, batch: usize) -> TileConfig {
        // One sequence's lengths are its means: m192's rule can be applied.
        let (q, kv) = (
            total_q.min(i32::MAX as usize) as i32,
            num_kv_indices.min(i32::MAX as usize) as i32,
        );
        let (one, lengths) = (
            ([0, q], [0, kv]),
            SeqLengths::of([(total_q, num_kv_indices)]),
        );
        let known = (batch == 1).then_some((&one.0[..], &one.1[..], &lengths));
        TileConfig::choose_for(total_q, num_kv_indices, batch, known)
    }

    /// [`TileConfig::choose`], with the indptrs and their summary where the
    /// host has them (`M192` is chosen only then).
    fn choose_for(
        total_q: usize,
        num_kv_indices: usize,
        batch: usize,
        known: Option<(&[i32], &[i32], &SeqLengths)>,
    ) -> TileConfig {
        if batch == 0 {
            return TileConfig::M64;
        }
        let (mean_q, mean_kv) = (total_q / batch, num_kv_indices / batch);
        let m128_from = match batch {
            1 => M64_MAX_SINGLE_KV_LEN,
            2 => M64_MAX_PAIR_MEAN_KV_LEN,
            _ => M64_MAX_MEAN_Q_LEN,
        };
        // The decode rule was fitted with these bounds; the prefill ones
        // above were refitted later without it.
        let m128dv_from = if batch == 1 {
            DECODE_SINGLE_M128DV_MIN_KEYS
        } else {
            M64_MAX_MEAN_Q_LEN
        };
        // A few short sequences over a cached prefix: the 128-row plan
        // leaves most SMs idle, m64's twice as many tiles fill them.
        let tiles128 = batch * crate::problem::NUM_KV_HEADS * (mean_q * GROUP_SIZE).div_ceil(128);
        let few_tiles = mean_q >= M128_MIN_MEAN_Q_LEN
            && batch <= M64_FEW_TILES_MAX_BATCH
            && tiles128
                <= if batch <= 2 || M64_FEW_TILES_3_4_SHORT_KV_LENS.contains(&mean_kv) {
                    M64_FEW_TILES128_MAX
                } else {
                    M64_FEW_TILES128_MAX_3_4
                }
            && tiles128 * mean_kv <= M64_FEW_TILES_MAX_TILE_KEYS
            && (M64_FEW_TILES_MIN_KV_LEN..=M64_FEW_TILES_MAX_KV_LEN).contains(&mean_kv);
        if few_tiles {
            TileConfig::M64
        } else if mean_kv >= m128_from && mean_q >= M128_MIN_MEAN_Q_LEN {
            let tile_keys = mean_kv.saturating_sub(mean_q / 2);
            if batch > M128_DEEP_MAX_BATCH {
                TileConfig::M128
            } else if known.is_some_and(|(qo, kv, lengths)| m192_by_model(qo, kv, lengths)) {
                TileConfig::M192
            } else if tile_keys >= M128_DEEP_MIN_KEYS
                || (batch == 1 && tile_keys < SINGLE_M128_DEEP_V_MIN_KEYS)
            {
                TileConfig::M128Deep
            } else {
                TileConfig::M128DeepV
            }
        } else if mean_q < M128_MIN_MEAN_Q_LEN
            && mean_kv >= m128dv_from
            && decode_m128dv_for(
                total_q,
                num_kv_indices,
                batch,
                known.map(|(qo, kv, _)| (qo, kv)),
            )
        {
            TileConfig::M128DeepV
        } else {
            TileConfig::M64
        }
    }

    /// Whether a call of these sequences (`qo_indptr`, `kv_indptr`; false
    /// for indptrs that do not start at 0 or decrease) runs faster on `M192`
    /// than on the 128-row tiles. Each 128-row tile reads its whole key range, so a
    /// sequence of few queries over a long cached prefix reads its K/V once
    /// per tile; 192-row tiles read it two thirds as often, but each of
    /// their units is 1.5x as long and a split tile's merge reads 1.5x the
    /// rows. Which wins is a matter of how the units fill the CTAs, so the
    /// rule models both configurations' plans ([`UnitPlan`], with the
    /// automatic split each would make on an H200's [`M192_WAVE_CTAS`]
    /// CTAs): each unit costs its rows times its keys plus
    /// [`M192_MODEL_UNIT_KEYS`], each chunk of a split tile
    /// [`M192_MODEL_CHUNK_KEYS`] more per chunk of its tile, the units go
    /// longest first to the least loaded CTA, and m192 is taken where its
    /// busiest CTA's total is below [`M192_MODEL_MAX_RATIO_PCT`] percent of
    /// the 128-row tiles' ([`M192_MODEL_ONE_WAVE_MAX_RATIO_PCT`] for one
    /// sequence whose 128-row tiles fit one wave). Outside the model, where
    /// it was not measured or lost: more than [`M128_DEEP_MAX_BATCH`]
    /// sequences (the plan's limit), fewer than [`M192_MIN_PREFIX_RATIO`]
    /// keys a query, more than [`M192_MAX_TILES128`] 128-row tiles.
    ///
    /// Fitted on the H200 to 92 cached-prefix calls, m192 forced against
    /// the rest (seventeenth session call 2, eighteenth session calls 1-3):
    /// it takes 29, all faster (0.69-0.96, geomean 0.86); of those it
    /// leaves, none was more than 10% faster on m192. Thresholds alone
    /// (padding, key spread, blocks per CTA) lost 14% on calls where the
    /// 128-row tiles already fit one wave and m192's units were longer.
    ///
    /// [`UnitPlan`]: crate::units::UnitPlan
    pub fn prefers_m192(qo_indptr: &[i32], kv_indptr: &[i32]) -> bool {
        // Indptrs that HostPlan::new would refuse are never m192's.
        let valid = |p: &[i32]| p.first() == Some(&0) && p.windows(2).all(|w| w[0] <= w[1]);
        if qo_indptr.len() != kv_indptr.len() || !valid(qo_indptr) || !valid(kv_indptr) {
            return false;
        }
        m192_by_model(
            qo_indptr,
            kv_indptr,
            &SeqLengths::of_indptrs(qo_indptr, kv_indptr),
        )
    }
}

/// [`TileConfig::prefers_m192`] on valid indptrs and their summary.
fn m192_by_model(qo_indptr: &[i32], kv_indptr: &[i32], lengths: &SeqLengths) -> bool {
    use crate::problem::NUM_KV_HEADS;
    if lengths.seqs == 0
        || lengths.seqs > M128_DEEP_MAX_BATCH
        || lengths.keys < M192_MIN_PREFIX_RATIO * lengths.queries
        || lengths.tiles128 * NUM_KV_HEADS > M192_MAX_TILES128
    {
        return false;
    }
    let span = |config| modelled_span(config, qo_indptr, kv_indptr);
    let one_wave = lengths.seqs == 1 && lengths.tiles128 * NUM_KV_HEADS <= M192_WAVE_CTAS;
    let bound = if one_wave {
        M192_MODEL_ONE_WAVE_MAX_RATIO_PCT
    } else {
        M192_MODEL_MAX_RATIO_PCT
    };
    100 * span(TileConfig::M192) < bound * span(TileConfig::M128Deep)
}

/// [`TileConfig::prefers_m192`]'s model: the busiest CTA's cost (rows x
/// keys) when `config`'s units, as its plan cuts them, go longest first to
/// the least loaded of [`M192_WAVE_CTAS`] CTAs.
fn modelled_span(config: TileConfig, qo_indptr: &[i32], kv_indptr: &[i32]) -> i64 {
    use crate::units::{PlanInputs, UnitPlan};
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let (bm, bn) = (config.block_m() as i64, config.block_n() as i64);
    let (total_q, keys) = (
        *qo_indptr.last().unwrap_or(&0) as usize,
        *kv_indptr.last().unwrap_or(&0) as usize,
    );
    let plan = UnitPlan::new(&PlanInputs {
        config,
        qo_indptr,
        kv_indptr,
        total_q,
        num_kv_indices: keys,
        grid: M192_WAVE_CTAS,
        split: SplitPolicy::Auto,
        partial_slots: crate::units::merge_slots(config, M192_WAVE_CTAS),
    });
    let mut costs: Vec<i64> = plan
        .units
        .iter()
        .map(|u| {
            let keys = (u.blk_hi - u.blk_lo) as i64 * bn + M192_MODEL_UNIT_KEYS;
            let merge = if u.n_chunks > 1 {
                M192_MODEL_CHUNK_KEYS * u.n_chunks as i64
            } else {
                0
            };
            bm * (keys + merge)
        })
        .collect();
    costs.sort_unstable_by(|a, b| b.cmp(a));
    let mut ctas: BinaryHeap<Reverse<i64>> = (0..M192_WAVE_CTAS).map(|_| Reverse(0)).collect();
    for c in costs {
        if let Some(Reverse(least)) = ctas.pop() {
            ctas.push(Reverse(least + c));
        }
    }
    ctas.into_iter().map(|Reverse(t)| t).max().unwrap_or(0)
}

/// What [`HostPlan`] and [`TileConfig::prefers_m192`] take of a call's
/// sequences (those with queries: the others have no tiles), in one pass.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct SeqLengths {
    /// Sequences with queries.
    seqs: usize,
    /// Their queries.
    queries: usize,
    /// Their keys.
    keys: usize,
    /// 128-row tiles of one kv head.
    tiles128: usize,
}

impl SeqLengths {
    /// The summary of `(q_len, kv_len)` pairs.
    fn of(lengths: impl IntoIterator<Item = (usize, usize)>) -> SeqLengths {
        let mut s = SeqLengths::default();
        for (q_len, kv_len) in lengths.into_iter().filter(|&(q, _)| q > 0) {
            s.seqs += 1;
            s.queries += q_len;
            s.keys += kv_len;
            s.tiles128 += (GROUP_SIZE * q_len).div_ceil(128);
        }
        s
    }

    /// The summary of the sequences of valid (nondecreasing) indptrs.
    fn of_indptrs(qo_indptr: &[i32], kv_indptr: &[i32]) -> SeqLengths {
        SeqLengths::of(
            qo_indptr
                .windows(2)
                .zip(kv_indptr.windows(2))
                .map(|(q, k)| ((q[1] - q[0]) as usize, (k[1] - k[0]) as usize)),
        )
    }
}

/// When the kernel splits a tile's key range into chunks that different CTAs
/// compute, merged in the same launch (`kernels/attn/scheduler.cuh`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SplitPolicy {
    /// Split where the plan's estimate of the call's time says it pays
    /// ([`crate::units::auto_chunk`]: the longest tile cut into 1-64 chunks
    /// of at least 1024 keys, up to 64 for calls of at most 2 queries a
    /// sequence (merged by rows) and 32 otherwise; in a call whose units
    /// fit one wave, chunks of 512 keys where a tile has 9 or more of them
    /// (the spread merge) and of 256 keys where its tiles are longer than
    /// 768; the cut with the least estimated time), decided
    /// from the indptrs on the device, or on the host by
    /// [`crate::PagedPrefill::plan`].
    #[default]
    Auto,
    /// Never split.
    Never,
    /// Chunks of at most this many key blocks (at least 1): for tests of the
    /// merge path.
    Blocks(u32),
}

impl SplitPolicy {
    /// The kernel's `split_blocks` parameter: 0 auto, -1 never, n > 0 forced.
    pub(crate) fn kernel_value(self) -> i32 {
        match self {
            SplitPolicy::Auto => 0,
            SplitPolicy::Never => -1,
            SplitPolicy::Blocks(n) => n.clamp(1, i32::MAX as u32) as i32,
        }
    }
}

/// A schedule decided on the host, for callers that have the indptrs in host
/// memory: the call is validated there (indptr contents and, when given, page
/// ids, with typed errors naming the bad entry), and the tile configuration is
/// chosen from the real sequence lengths rather than `total_q / batch`. The
/// kernel still maps tiles to sequences on the device, so a plan stays valid
/// for any indptr contents with the same sequence lengths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostPlan {
    /// The dimensions the plan was made for.
    pub dims: crate::problem::Dims,
    /// The tile configuration chosen.
    pub config: TileConfig,
}

impl HostPlan {
    /// Validates `qo_indptr`, `kv_indptr` (and `kv_indices` when `Some`)
    /// against `dims` and chooses the tile configuration
    /// ([`TileConfig::choose`]) from the query and key counts of the
    /// sequences that have queries.
    pub fn new(
        dims: &crate::problem::Dims,
        qo_indptr: &[i32],
        kv_indptr: &[i32],
        kv_indices: Option<&[i32]>,
    ) -> crate::Result<HostPlan> {
        use crate::problem::{check_indptrs, check_len, check_page_ids};
        dims.check()?;
        check_indptrs(dims, qo_indptr, kv_indptr)?;
        if let Some(idx) = kv_indices {
            check_len("kv_indices", dims.num_kv_indices, idx.len())?;
            check_page_ids(dims, idx)?;
        }
        // The sequences with queries (the others have no tiles).
        let lengths = SeqLengths::of_indptrs(qo_indptr, kv_indptr);
        let mut config = TileConfig::choose_for(
            lengths.queries,
            lengths.keys,
            lengths.seqs,
            Some((qo_indptr, kv_indptr, &lengths)),
        );
        // The deep rings' plan holds the call's sequences, empty ones too:
        // above that they would run without a plan (no split, no sort):
        // m128, or m64 for the decode-like calls (decode_prefers_m128dv),
        // whose units m128 runs slower than m64.
        if matches!(
            config,
            TileConfig::M128Deep | TileConfig::M128DeepV | TileConfig::M192
        ) && dims.batch > M128_DEEP_MAX_BATCH
        {
            config = if lengths.queries / lengths.seqs.max(1) < M128_MIN_MEAN_Q_LEN {
                TileConfig::M64
            } else {
                TileConfig::M128
            };
        }
        Ok(HostPlan {
            dims: *dims,
            config,
        })
    }
}

/// Whether a decode-like call (fewer than [`M128_MIN_MEAN_Q_LEN`] queries a
/// sequence, enough keys for the 128-row tiles) runs faster on `M128DeepV`
/// than on `M64`: a call of at most [`DECODE_M128DV_MAX_BATCH`] sequences
/// whose sequences have [`DECODE_M128DV_MIN_MEAN_Q`] queries or more (more
/// than 64 rows: m64's tiles read each key twice) or whose keys are at most
/// [`DECODE_M128DV_MAX_KEYS`] in all (too few units to fill the GPU, where
/// a unit's chain of blocks sets the time and m128dv's 128-key blocks halve
/// its steps). Larger calls are held by the K/V stream, which m64 moves in
/// whole 128-byte lines (`GatherLoader`) and two CTAs an SM.
///
/// Fitted on the H200 (twentieth session, call 8) on 16 decode calls
/// (`scripts/make-sweep-workloads.py --decode`: m128dv 0.85-0.96 of m64's
/// time where the rule picks it, m64 1.5-7% faster where it does not, one
/// tie) and looked at on 16 random ones (`--decode-holdout`, 13 of 16 as
/// the rule says; the batch limit moved from 64 to 32 after it, for 64
/// sequences of 3 queries over 1024 keys), then checked on a fresh draw
/// (`--decode-holdout2`, call 9: the 9 calls it moved 4-27% faster, the 7 it
/// left on m64 none slower than before; 3 of those would gain on m128dv,
/// so the limits are on the safe side).
///
/// Except a call of at most [`DECODE_SPREAD_MAX_BATCH`] sequences of fewer
/// than [`DECODE_M128DV_MIN_MEAN_Q`] queries over at least
/// [`DECODE_SPREAD_MIN_KEYS`] keys: m64's one wave of 264 CTAs cuts each of
/// its (at most 12) tiles into many chunks that all help merge it (the
/// spread merge, [`crate::units::SPREAD_MIN_CHUNKS`]), up to twice m128dv's,
/// at two CTAs an SM. Measured on the H200 (twenty-first session): on the
/// four decode sweeps with the spread merge (call 2) m64 2.4-9% faster on
/// the 9 such calls of 32768 keys or more, m128dv as fast or faster on the
/// others of up to 32 sequences (4 sequences: equal; one query over 4096
/// keys: m64 1.33x); on a fresh draw of 1-6 sequences (call 3) the 3 calls
/// the exception took 4-27% faster than m128dv, and m64 also 2-8% faster on
/// the four calls of 24000 keys that it left on m128dv, m128dv 0-10% faster
/// at 15000 keys and below (16384: equal, call 2), so the key limit moved
/// from 32768 to 20000 after that draw.
///
/// And except a call whose m64 tiles, cut into chunks of
/// [`crate::units::ONE_WAVE_MIN_CHUNK_KEYS`] (sequences of more than
/// [`DECODE_FINE_MIN_MEAN_KEYS`] keys on average and at most
/// [`DECODE_FINE_MAX_MEAN_KEYS`]), fit m64's one wave twice over
/// ([`M64_WAVE_CTAS`]), with at most [`DECODE_FINE_MAX_MEAN_Q`] queries a
/// sequence: there the split makes up to twice m128dv's units, each of half
/// its rows. Measured on the H200 (twenty-second session, both
/// configurations with that split): on 40 short decode-like calls and the
/// wide draw's decode calls (call 3) m64 3-20% faster on the 10 calls of
/// up to 2048 keys a sequence the rule takes but two (2.5-4% slower: 4
/// queries over 1500 keys, 15 over 960; one query over 1300 keys 15.7 us
/// against 17.5, 13 queries over 1600 keys 20.0 against 24.8); on a fresh
/// draw (call 4) 6-15% faster on the 3 such calls, but 19-23% slower on
/// two of 8 and 13 queries over 3000 keys, so the key limit moved from
/// 4096 to 2048. m128dv is faster on calls of fewer keys and on those
/// whose m64 tiles overflow a wave.
///
/// And except a call of sequences merged by rows (at most two queries on
/// average, [`crate::units::ROW_MERGE_MAX_ROWS`]) of at most
/// [`DECODE_FINE_MAX_MEAN_KEYS`] keys a sequence that m64's row split would
/// cut (`m64_row_split_pays`): its chunks of 64-128 keys (twenty-third
/// session, call 1, forced): one query over 512 keys on three sequences
/// 14.1 us against m128dv's 16.9, over 1300 keys 13.0 against 16.0.
///
/// Refitted on the kernel of the thirtieth session (call 2: auto, m64 and
/// m128dv over 148 decode-like calls of eight draws): below
/// [`DECODE_M128DV_MIN_MEAN_Q`] queries a sequence, m64 wherever its
/// automatic split cuts a tile (`m64_plan_splits`, on the call's own
/// lengths under the host plan, on the mean lengths under the device plan):
/// of the 30 calls the old rule left on m128dv that this moves, 26 were
/// 3-16% faster on m64 and 4 0.4-4.6% slower; where m64
/// does not split, its 64-key blocks double a unit's steps and m128dv was
/// 4-10% faster. From [`DECODE_M128DV_MIN_MEAN_Q`] queries, m128dv up to
/// [`DECODE_M128DV_MAX_BATCH_WIDE`] sequences, but for one sequence of at
/// most [`DECODE_SINGLE_M64_MAX_KEYS`] keys (call 7).
pub fn decode_prefers_m128dv(total_q: usize, num_kv_indices: usize, batch: usize) -> bool {
    decode_m128dv_for(total_q, num_kv_indices, batch, None)
}
/// [`decode_prefers_m128dv`], with the call's indptrs where the host has
/// them (m64's split is then tested on the call's own lengths).
fn decode_m128dv_for(
    total_q: usize,
    num_kv_indices: usize,
    batch: usize,
    indptrs: Option<(&[i32], &[i32])>,
) -> bool {
    let mean_q = total_q / batch.max(1);
    if batch <= DECODE_SPREAD_MAX_BATCH
        && mean_q < DECODE_M128DV_MIN_MEAN_Q
        && num_kv_indices >= DECODE_SPREAD_MIN_KEYS
    {
        return false;
    }
    let m64_tiles = batch.max(1)
        * (crate::problem::GROUP_SIZE * mean_q).div_ceil(TileConfig::M64.block_m())
        * crate::problem::NUM_KV_HEADS;
    let mean_kv = num_kv_indices / batch.max(1);
    let mean_kv_blocks = mean_kv.div_ceil(TileConfig::M64.block_n()) as i64;
    if mean_q * crate::problem::GROUP_SIZE <= crate::units::ROW_MERGE_MAX_ROWS as usize
        && mean_kv <= DECODE_FINE_MAX_MEAN_KEYS
        && m64_row_split_pays(m64_tiles as i64, mean_kv_blocks)
    {
        return false;
    }
    if mean_q <= DECODE_FINE_MAX_MEAN_Q
        && mean_kv <= DECODE_FINE_MAX_MEAN_KEYS
        && mean_kv > DECODE_FINE_MIN_MEAN_KEYS
        && 2 * m64_tiles <= M64_WAVE_CTAS
    {
        return false;
    }
    if mean_q >= DECODE_M128DV_MIN_MEAN_Q {
        // One to four sequences: their few 128-row tiles leave most SMs
        // idle, m64's twice as many (each key read twice) fill them.
        let single_m64 = batch == 1 && num_kv_indices <= DECODE_SINGLE_M64_MAX_KEYS;
        // Where m64's split cuts a tile (as below 11 queries).
        let few_m64 = (2..=DECODE_FEW_M64_MAX_BATCH).contains(&batch)
            && mean_kv <= DECODE_FINE_MAX_MEAN_KEYS
            && m64_plan_splits(total_q, num_kv_indices, batch, indptrs);
        return batch <= DECODE_M128DV_MAX_BATCH_WIDE && !single_m64 && !few_m64;
    }
    batch <= DECODE_M128DV_MAX_BATCH
        && num_kv_indices <= DECODE_M128DV_MAX_KEYS
        && !m64_plan_splits(total_q, num_kv_indices, batch, indptrs)
}
/// Whether m64's automatic split would cut a tile of this call, on an
/// H200's one wave of [`M64_WAVE_CTAS`] ([`decode_prefers_m128dv`]): from
/// the call's indptrs where given, else as if its sequences all had the
/// mean lengths (the device plan's launch, whose lengths the host does not
/// know).
fn m64_plan_splits(
    total_q: usize,
    num_kv_indices: usize,
    batch: usize,
    indptrs: Option<(&[i32], &[i32])>,
) -> bool {
    use crate::units::{launch_grid, merge_slots, plan_splits, PlanInputs};
    let (Ok(q), Ok(kv)) = (i32::try_from(total_q), i32::try_from(num_kv_indices)) else {
        return false;
    };
    let dims = crate::problem::Dims::new(total_q, num_kv_indices, batch, num_kv_indices);
    let Some((grid, false)) = launch_grid(
        TileConfig::M64,
        &dims,
        SplitPolicy::Auto,
        M64_WAVE_CTAS as u64,
    ) else {
        return false;
    };
    let splits = |qo: &[i32], kvp: &[i32]| {
        plan_splits(&PlanInputs {
            config: TileConfig::M64,
            qo_indptr: qo,
            kv_indptr: kvp,
            total_q,
            num_kv_indices,
            grid: grid as usize,
            split: SplitPolicy::Auto,
            partial_slots: merge_slots(TileConfig::M64, M192_WAVE_CTAS),
        })
    };
    // One sequence's lengths are the call's sizes.
    if let Some((qo, kvp)) = indptrs.filter(|(qo, _)| qo.len() != 2) {
        return splits(qo, kvp);
    }
    // The device plan's launches ask this on every call (up to a few us of
    // search for 8-32 sequences) with the sizes of the layer before: the
    // last answer is kept per thread.
    type Sizes = (usize, usize, usize);
    thread_local! {
        static LAST: std::cell::Cell<Option<(Sizes, bool)>> = const { std::cell::Cell::new(None) };
    }
    let key: Sizes = (total_q, num_kv_indices, batch);
    if let Some((k, v)) = LAST.get() {
        if k == key {
            return v;
        }
    }
    let at = |total: i32, b: usize| (total as i64 * b as i64 / batch.max(1) as i64) as i32;
    let uniform = |total: i32| -> Vec<i32> { (0..=batch).map(|b| at(total, b)).collect() };
    let v = splits(&uniform(q), &uniform(kv));
    LAST.set(Some((key, v)));
    v
}
/// Most sequences of a decode-like call that m64's spread merge takes over
/// `M128DeepV` ([`decode_prefers_m128dv`]).
pub const DECODE_SPREAD_MAX_BATCH: usize = 3;
/// Fewest keys of a decode-like call that m64's spread merge takes over
/// `M128DeepV` ([`decode_prefers_m128dv`]).
pub const DECODE_SPREAD_MIN_KEYS: usize = 20000;
/// Most queries a sequence for m64's fine split over `M128DeepV`
/// ([`decode_prefers_m128dv`]).
pub const DECODE_FINE_MAX_MEAN_Q: usize = 14;
/// Fewest keys a sequence (on average, exclusive) for m64's fine split over
/// `M128DeepV` ([`decode_prefers_m128dv`]): where the split's estimate cut
/// m64's tiles into chunks of 256 keys when the rule was fitted (twenty-second
/// session; the chunk's cost in a call of one wave was 4 blocks then, 3
/// since the twenty-fourth, which was not refitted here).
pub const DECODE_FINE_MIN_MEAN_KEYS: usize = 768;
/// Most keys a sequence (on average) for m64's fine split over `M128DeepV`
/// ([`decode_prefers_m128dv`]): at 3000-4400 keys m64 was 3-4% faster on
/// two calls and 3-23% slower on three (4096 on the first fit, call 3;
/// moved to 2048 after the fresh draw of call 4).
pub const DECODE_FINE_MAX_MEAN_KEYS: usize = 2048;
/// m64's CTAs in one wave on an H200 (two an SM), for [`decode_prefers_m128dv`].
pub const M64_WAVE_CTAS: usize = 2 * M192_WAVE_CTAS;
/// Whether m64's row split ([`crate::units::row_split_possible`]) would cut
/// `tiles` tiles of `blocks` 64-key blocks by the split's estimate: the
/// most chunks a tile that keep the units within
/// [`crate::units::ROW_SPLIT_MAX_UNITS`] make a chunk that, with its cost,
/// is shorter than the tile.
fn m64_row_split_pays(tiles: i64, blocks: i64) -> bool {
    use crate::units::{ONE_WAVE_CHUNK_COST_BLOCKS128, ROW_SPLIT_MAX_CHUNKS, ROW_SPLIT_MAX_UNITS};
    let chunks = (ROW_SPLIT_MAX_UNITS / tiles.max(1))
        .min(ROW_SPLIT_MAX_CHUNKS)
        .min(blocks);
    let cost = ONE_WAVE_CHUNK_COST_BLOCKS128 * 128 / TileConfig::M64.block_n() as i64;
    chunks >= 2 && (blocks + chunks - 1) / chunks + cost < blocks
}
/// Most sequences a decode-like call of fewer than
/// [`DECODE_M128DV_MIN_MEAN_Q`] queries a sequence may have for `M128DeepV`
/// ([`decode_prefers_m128dv`]).
pub const DECODE_M128DV_MAX_BATCH: usize = 32;
/// Most sequences a decode-like call of [`DECODE_M128DV_MIN_MEAN_Q`] or
/// more queries a sequence may have for `M128DeepV`: as many as its plan
/// holds ([`M128_DEEP_MAX_BATCH`]; thirtieth session, call 2: 48
/// sequences of 15 queries over 512 keys 8% faster than on m64, whose
/// 64-row tiles read each key twice; 96 and 128 sequences of 12-15
/// queries over 1024 keys, forced onto m128dv without its plan, 16%).
pub const DECODE_M128DV_MAX_BATCH_WIDE: usize = M128_DEEP_MAX_BATCH;
/// Most keys of one sequence of [`DECODE_M128DV_MIN_MEAN_Q`] or more
/// queries (a decode-like call) that m64 takes over `M128DeepV`
/// ([`decode_prefers_m128dv`]): thirtieth session, call 7 (11-15 queries
/// over 512-6000 keys, exact lengths, both forced): m64 0.66-0.94 of
/// m128dv's time on every call up to 4096 keys, 0.986-0.995 at 6000; with
/// two sequences mixed (0.71-1.10), so one only. Also call 2: 14 queries
/// over 571 keys 0.905, over 2087 0.816; over 16384-48000 keys 1.01-1.14.
pub const DECODE_SINGLE_M64_MAX_KEYS: usize = 4096;
/// Most sequences of [`DECODE_M128DV_MIN_MEAN_Q`] or more queries (a
/// decode-like call) that m64 takes over `M128DeepV` when their mean keys
/// are at most [`DECODE_FINE_MAX_MEAN_KEYS`]
/// ([`decode_prefers_m128dv`]). Thirty-eighth session (H100, grid A of
/// `bench-results/h200-v40-session/grids.py`: 2-4 sequences of 11-15
/// queries over 640-2300 keys, m64 and m128dv forced): of the calls the
/// rule left on m128dv in that range, 9 of 10 ran on m64 at 0.835-0.941
/// of m128dv's time and one at 1.085; above 2048 keys 0.95-1.04. On a
/// fresh draw (call 2, `h200-v41-session/val-draws.py`) 13 of the 14 calls
/// it moved took 0.852-0.919 of main's time and one 1.099. The two slower
/// calls were the only ones whose m64 plan (host, exact lengths) does not
/// split a tile, so m64 is taken only where it does (`m64_plan_splits`,
/// as below 11 queries): on the 24 calls it then picks the faster
/// configuration of the two on every one. Forty-first session (H100, call
/// 2c): widened from 2-4 sequences over 576+ mean keys to 2-5 at any mean
/// keys, with the short fine split (`units::SHORT_FINE_MIN_CHUNK_KEYS`:
/// the calls both moved took 0.922 of their time).
pub const DECODE_FEW_M64_MAX_BATCH: usize = 5;
/// Queries a sequence from which a decode-like call's m64 tiles (64 rows: 10
/// queries of 6 heads) would read each key twice ([`decode_prefers_m128dv`]).
pub const DECODE_M128DV_MIN_MEAN_Q: usize = 11;
/// Keys of a decode-like call up to which its units are too few to be held by
/// the K/V stream ([`decode_prefers_m128dv`]).
pub const DECODE_M128DV_MAX_KEYS: usize = 65536;

/// Mean key count per sequence below which [`TileConfig::choose`] picks
/// `M64`. Set from both configurations of the persistent kernel timed on every
/// seed and scale workload on the H200 (BENCHMARKS.md, v7; there keys equal
/// queries): m128 wins from seed10 (mean 329) and seed07 (559) up, m64 at
/// seed14 (306) and below; with 600 queries over 0-300 keys per sequence
/// (`workloads/shapes.jsonl`, q_gt_kv_b8) m64 took 26.8 us and m128 30.0.
pub const M64_MAX_MEAN_Q_LEN: usize = 320;

/// Key count below which [`TileConfig::choose`] picks `M64` for a prefill
/// of one sequence. Every configuration forced on one sequence of 256 to
/// 1536 tokens (thirty-third session, call 1, two rounds, H100;
/// `bench-results/h200-v37-session/prefill-grid.py`): m64 0.95-0.96 of
/// the 128-row tiles' time at 512-576 tokens (seed07 / seed08: 559), 0.99
/// at 640, within 1% of the fastest at 704, 2-13% slower from 768 up. (The
/// sixth session's fit, 512, was on kernels since replaced.)
pub const M64_MAX_SINGLE_KV_LEN: usize = 704;

/// Mean key count below which [`TileConfig::choose`] picks `M64` for a
/// prefill of two sequences: same call, two sequences within 10% of a mean
/// of 320-512 tokens: m64 0.98, 0.98, 0.95 and 0.91 of the 128-row tiles'
/// time at 320, 352, 416 and 512. From three sequences the two traded
/// places within 8% either way above 320 ([`M64_MAX_MEAN_Q_LEN`] stays).
pub const M64_MAX_PAIR_MEAN_KV_LEN: usize = 576;

/// The 128-row plan's tile count (sequences x kv heads x 128-row tiles a
/// sequence, from the mean query count) up to which [`TileConfig::choose`]
/// picks `M64` for short prefills of up to [`M64_FEW_TILES_MAX_BATCH`]
/// sequences over a cached prefix of [`M64_FEW_TILES_MIN_KV_LEN`] to
/// [`M64_FEW_TILES_MAX_KV_LEN`] keys, while the tiles times the keys stay
/// within [`M64_FEW_TILES_MAX_TILE_KEYS`]. Thirty-fifth session, H100,
/// two rounds each (`bench-results/h200-v39-session/`): every
/// configuration forced on one sequence of 64-640 queries over 256-4096
/// more keys and 2-4 of 12-24 queries over 384-768 keys (call 3): one
/// sequence of 64 queries over 1088 / 2112 keys m64 0.83 / 0.90 of the
/// automatic choice's time, 128 over 1152 / 2176 0.91 / 0.97 (24 tiles),
/// 256 (48 tiles) over 768-4352 1.03-1.21; 2-4 of 16-24 queries over ~768
/// keys 0.83-0.98. At 24 tiles on a fresh draw (call 4) the 17 calls it
/// moved took 0.80-0.98 of main's time and m64 forced beat the rest on
/// calls of 28-36 tiles; at 36 on a second draw (call 5) the 18 more calls
/// it moved took 0.91-1.01 of the 24-tile rule's time with 1-2 sequences,
/// 0.91-1.13 with 3-4 (geomean 1.01; 40-56 queries over ~1700-2200 keys
/// 1.05-1.13), so for 3-4 sequences the bound stays 24
/// ([`M64_FEW_TILES128_MAX_3_4`]).
pub const M64_FEW_TILES128_MAX: usize = 36;
/// [`M64_FEW_TILES128_MAX`] for calls of 3-4 sequences outside
/// [`M64_FEW_TILES_3_4_SHORT_KV_LENS`].
pub const M64_FEW_TILES128_MAX_3_4: usize = 24;
/// Mean keys a sequence over which calls of 3-4 sequences take
/// [`M64_FEW_TILES128_MAX`] too. Over the three draws of the thirty-fifth
/// and thirty-eighth sessions (H100, m64 forced beside the rule), the
/// calls of 3-4 sequences at 28-36 tiles over 768-1286 keys ran on m64 at
/// 0.905-1.009 of the 24-tile rule's time (8 calls, geomean ~0.94); over
/// 533 keys 1.027, over 1400-1850 0.93-1.03, over 2100-2600 0.96-1.10.
pub const M64_FEW_TILES_3_4_SHORT_KV_LENS: std::ops::RangeInclusive<usize> = 640..=1280;
/// [`M64_FEW_TILES128_MAX`]'s bound on the 128-row tiles times the mean
/// keys a sequence (24 tiles of 2304 keys, the longest the 24-tile rule
/// was checked on): it keeps 32-36 tiles over ~1950-2400 keys off m64
/// (call 5: 1.00-1.01 there; call 4: m64 forced 0.94-0.97, so cautious).
pub const M64_FEW_TILES_MAX_TILE_KEYS: usize = 24 * 2304;
/// Keys a sequence up to which [`M64_FEW_TILES128_MAX`] applies: one
/// sequence of 64 queries over 4160 keys m64 1.05, 128 over 4224 1.09.
pub const M64_FEW_TILES_MAX_KV_LEN: usize = 2304;
/// Keys a sequence from which [`M64_FEW_TILES128_MAX`] applies: over ~384
/// keys 3-4 sequences of 12-24 queries were within 7% either way (geomean
/// ~1.02 on m64), so the older bounds keep those calls.
pub const M64_FEW_TILES_MIN_KV_LEN: usize = 512;
/// Sequences up to which [`M64_FEW_TILES128_MAX`] applies: the draws it was
/// fitted and checked on had 1-4.
pub const M64_FEW_TILES_MAX_BATCH: usize = 4;

/// Key count from which a decode-like call of one sequence may take
/// `M128DeepV` ([`decode_prefers_m128dv`]): the prefill bound this rule was
/// fitted under (twentieth to thirtieth sessions), kept when that moved.
pub const DECODE_SINGLE_M128DV_MIN_KEYS: usize = 512;

/// Mean query count per sequence from which [`TileConfig::choose`] picks
/// `M128` (given enough keys): on cached prefixes (`workloads/prefix.jsonl`,
/// 16 to 1000 queries over 1024 to 16384 keys) m128 was 13-22% faster than
/// m64 on every call but one (32 queries over 16384 keys: within 2%), from
/// 16 queries (96 of a tile's 128 rows) up (fourth session).
pub const M128_MIN_MEAN_Q_LEN: usize = 16;

/// A tile's mean key range from which [`TileConfig::choose`] picks
/// `M128Deep` over `M128DeepV`: from 3840 keys per tile (one sequence of
/// 8192 to 32768, cached prefixes of 4096 to 16384 keys) `M128Deep` was
/// 1-3% faster, at 2048 keys and below `M128DeepV` 2-6% (thirteenth
/// session, call 5).
pub const M128_DEEP_MIN_KEYS: usize = 3072;

/// A tile's mean key range below which [`TileConfig::choose`] keeps one
/// sequence on `M128Deep`: with one unit per CTA the second Q slot has
/// nothing to load, and one sequence of 559 tokens (280 keys per tile) was
/// 1.5% faster there. From 512 keys per tile `M128DeepV` was 4-6% faster
/// (scale_single_1024 and 2048, seed11, seed15; fourteenth session,
/// call 1).
pub const SINGLE_M128_DEEP_V_MIN_KEYS: usize = 512;

/// Largest batch `M128Deep` and `M128DeepV` take: their plan holds 64
/// sequences (the shared memory of the third ring stage),
/// `units::plan_max_batch`. Up to it, `M128DeepV` replaced `M128` on the
/// batches of short tiles: seed13 (304 keys per tile) 3.5%, seed19 3.6%,
/// 64 x 512 4.4% and 16 x 512 3.6% faster, seed10 equal (fourteenth
/// session, call 2); `M128` differs only in V's ring depth and its plan's
/// 1024 sequences.
pub const M128_DEEP_MAX_BATCH: usize = 64;

/// Keys per query from which [`TileConfig::prefers_m192`] considers
/// `M192`: its wins were all at 8 and above when the model was fitted
/// (cached prefixes of 1024 to 32768 keys), its losses without a prefix
/// (keys = queries). Thirty-eighth session (H100, one sequence of 192-640
/// queries over 2048-5500 keys, every configuration forced): the six
/// calls of 5-7 keys a query that the model put below its bound (384-512
/// queries over 2560-3584 keys) ran on m192 at 0.90-0.95 of the 128-row
/// tiles' best, so the bound moved from 8 to 5.
pub const M192_MIN_PREFIX_RATIO: usize = 5;

/// Most 128-row tiles a call [`TileConfig::prefers_m192`] gives to `M192`:
/// it won at 192 (16 x 64 queries over 1024 keys 0.87, 2 x 512 over 4096
/// 0.89, 8 x 128 over 8192 0.95) and lost at 384 (16 x 128 over 1024 1.05,
/// 8 x 256 over 1024 1.07) and 976 (32 mixed 1.09).
pub const M192_MAX_TILES128: usize = 192;

/// The CTAs of a 128- or 192-row configuration's persistent grid on an H200
/// (one per SM), as [`TileConfig::prefers_m192`] counts waves.
pub const M192_WAVE_CTAS: usize = 132;

/// What a work unit costs [`TileConfig::prefers_m192`]'s model beyond its
/// keys, in keys of its rows: its start and end (about one 128-key block,
/// as `units::UNIT_COST_BLOCKS128` counts it).
pub const M192_MODEL_UNIT_KEYS: i64 = 128;

/// What each chunk of a split tile adds to every chunk's cost in
/// [`TileConfig::prefers_m192`]'s model, in keys of its rows: the merge
/// reads every chunk's partial output, so a tile of many chunks costs its
/// merging CTA in proportion (one sequence of 184 queries over 24169 keys
/// in 16 192-row chunks was 1.15x slower than in 3 128-row ones).
pub const M192_MODEL_CHUNK_KEYS: i64 = 128;

/// [`TileConfig::prefers_m192`] takes `M192` where its modelled busiest CTA
/// is below this percentage of the 128-row tiles' (0.93: the model's
/// ratios of 0.93-0.97 included calls 2-7% slower on m192).
pub const M192_MODEL_MAX_RATIO_PCT: i64 = 93;

/// [`M192_MODEL_MAX_RATIO_PCT`] for one sequence whose 128-row tiles fit
/// one wave: there the model over-prices m192. Thirty-eighth session
/// (H100, one sequence of 192-640 queries over 1704-5500 keys, every
/// configuration forced, 73 calls): the 20 calls of 5 keys a query and
/// more that the model put at 0.93-1.03 ran on m192 at 0.887-0.981 of the
/// automatic choice's time (geomean 0.922); the first loss was at 1.11
/// (320 queries over 5500 keys, 1.044). On the H200 (twenty-third
/// session) 512 queries over 32768 keys, at 0.954, ran 0.989-0.994.
pub const M192_MODEL_ONE_WAVE_MAX_RATIO_PCT: i64 = 103;

/// First tile index of sequence `b`, given `qo_indptr[b]`.
pub fn tile_start(qo_start: usize, b: usize, block_m: usize) -> usize {
    GROUP_SIZE * qo_start / block_m + b
}

/// Tiles per kv head for a call: an upper bound that needs only the shapes.
pub fn tiles_per_head(total_q: usize, batch: usize, block_m: usize) -> usize {
    tile_start(total_q, batch, block_m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problem::Dims;
    use crate::Error;

    #[test]
    fn host_plan_validates_and_chooses() {
        // 4 sequences, two without queries: mean over the other two is 600.
        let qo = [0, 600, 600, 600, 1200];
        let kv = [0, 600, 610, 610, 1210];
        let d = Dims::new(1200, 3000, 4, 1210);
        let plan = HostPlan::new(&d, &qo, &kv, None).unwrap();
        assert_eq!(plan.config, TileConfig::M128DeepV);
        // total_q / batch alone would say 300: m64.
        assert_eq!(TileConfig::choose(1200, 1210, 4), TileConfig::M64);
        assert_eq!(TileConfig::choose(1200, 1210, 2), TileConfig::M128DeepV);
        // Short prefills: m64 below 704 tokens alone, 576 a sequence for two.
        assert_eq!(TileConfig::choose(704, 704, 1), TileConfig::M128Deep);
        assert_eq!(TileConfig::choose(1024, 1024, 2), TileConfig::M64);
        assert_eq!(TileConfig::choose(1056, 1056, 3), TileConfig::M128DeepV);
        // More queries than keys: the tiles see few keys, m64.
        assert_eq!(TileConfig::choose(4800, 1678, 8), TileConfig::M64);
        // A few short sequences over 512-2304 keys of cached prefix: m64
        // up to 36 tiles of the 128-row plan (one sequence of 192 queries)
        // and 24 x 2304 tiles times keys; the 128-row tiles past a bound.
        assert_eq!(TileConfig::choose(128, 2176, 1), TileConfig::M64);
        assert_eq!(TileConfig::choose(3 * 32, 3 * 1500, 3), TileConfig::M64);
        assert_eq!(TileConfig::choose(192, 1336, 1), TileConfig::M64);
        assert_eq!(TileConfig::choose(256, 1280, 1), TileConfig::M128DeepV);
        assert_eq!(
            TileConfig::choose(4 * 30, 4 * 1540, 4),
            TileConfig::M128DeepV
        );
        // 3-4 sequences over 640-1280 keys: up to 36 tiles.
        for (q, kv, b, want) in [
            (4 * 30, 4 * 780, 4, TileConfig::M64),
            (3 * 56, 3 * 1280, 3, TileConfig::M64),
            (3 * 56, 3 * 1281, 3, TileConfig::M128DeepV),
            (4 * 24, 4 * 600, 4, TileConfig::M128DeepV),
            (4 * 48, 4 * 800, 4, TileConfig::M128DeepV),
        ] {
            assert_eq!(TileConfig::choose(q, kv, b), want, "{q} {kv} {b}");
        }
        assert_eq!(
            TileConfig::choose(5 * 16, 5 * 1000, 5),
            TileConfig::M128DeepV
        );
        assert_eq!(TileConfig::choose(128, 4224, 1), TileConfig::M128Deep);
        assert_eq!(
            TileConfig::choose(4 * 20, 4 * 400, 4),
            TileConfig::M128DeepV
        );
        // A cached prefix: few queries over many keys, the deep ring (m192
        // needs the sequences' lengths: the host plan); with more tiles too;
        // one query, m64.
        assert_eq!(TileConfig::choose(512, 16384, 4), TileConfig::M128Deep);
        let even = HostPlan::new(
            &Dims::new(512, 16384, 4, 16384),
            &[0, 128, 256, 384, 512],
            &[0, 4096, 8192, 12288, 16384],
            None,
        )
        .unwrap();
        assert_eq!(even.config, TileConfig::M192);
        assert_eq!(TileConfig::choose(2048, 65536, 16), TileConfig::M128Deep);
        assert_eq!(TileConfig::choose(128, 65536, 128), TileConfig::M64);
        // Decode-like calls (queries, keys, sequences): m128dv for a few
        // sequences with few keys in all, or with more than 10 queries a
        // sequence; m64 for many sequences or many keys, 1-3 sequences of
        // up to 10 queries over 20000 keys or more (the spread merge),
        // below 320 keys a sequence, and where its fine split fills a wave.
        for (q, kv, b, want) in [
            (1, 32768, 1, TileConfig::M64),
            (8, 65536, 1, TileConfig::M64),
            (3, 36000, 3, TileConfig::M64),
            (1, 16384, 1, TileConfig::M64),
            (2 * 6, 24000, 2, TileConfig::M64),
            (11, 32768, 1, TileConfig::M128DeepV),
            (4 * 8, 65536, 4, TileConfig::M64),
            (1, 131072, 1, TileConfig::M64),
            (4, 131072, 4, TileConfig::M64),
            (8 * 3, 8 * 3000, 8, TileConfig::M64),
            (8 * 12, 8 * 8192, 8, TileConfig::M128DeepV),
            (64 * 3, 64 * 1024, 64, TileConfig::M64),
            (32 * 4, 32 * 8192, 32, TileConfig::M64),
            (8 * 2, 8 * 256, 8, TileConfig::M64),
            // m64's fine split in one wave: up to 14 queries over 769-2048
            // keys a sequence, tiles twice over in 264 CTAs.
            (1, 1300, 1, TileConfig::M64),
            (1, 2048, 1, TileConfig::M64),
            (1, 2049, 1, TileConfig::M64),
            // m64's row split: one or two queries over fewer keys whose m64
            // tiles it would cut (1-block chunks and their cost shorter).
            (1, 768, 1, TileConfig::M64),
            (3, 3 * 512, 3, TileConfig::M64),
            (4, 4 * 448, 4, TileConfig::M128DeepV),
            (16 * 2, 16 * 400, 16, TileConfig::M128DeepV),
            (4 * 14, 4 * 1350, 4, TileConfig::M64),
            // 2-5 sequences of 11-15 queries over up to 2048 keys: m64 where
            // its split cuts a tile (the short fine split from 8 blocks);
            // more sequences or keys, or no split: m128dv.
            (4 * 15, 4 * 1350, 4, TileConfig::M64),
            (2 * 13, 2 * 700, 2, TileConfig::M64),
            (2 * 11, 2 * 576, 2, TileConfig::M64),
            (2 * 15, 2 * 512, 2, TileConfig::M64),
            (3 * 12, 3 * 400, 3, TileConfig::M128DeepV),
            (4 * 15, 4 * 2049, 4, TileConfig::M128DeepV),
            (5 * 15, 5 * 1350, 5, TileConfig::M64),
            (6 * 15, 6 * 1350, 6, TileConfig::M128DeepV),
            (11 * 3, 11 * 1000, 11, TileConfig::M64),
            (24 * 4, 24 * 1500, 24, TileConfig::M64),
            (24 * 15, 24 * 2048, 24, TileConfig::M128DeepV),
            // Below 11 queries, m64 wherever its split cuts a tile (above:
            // one query over 16384 keys, 8 x 3 over 3000, 4 x 8 over 16384,
            // one over 2049); where it does not, m128dv's 128-key blocks.
            (8, 8 * 384, 8, TileConfig::M128DeepV),
            (12, 12 * 512, 12, TileConfig::M128DeepV),
            // From 11 queries, m128dv up to the 64 sequences of its plan.
            (48 * 15, 48 * 512, 48, TileConfig::M128DeepV),
            (64 * 12, 64 * 1024, 64, TileConfig::M128DeepV),
            (65 * 12, 65 * 1024, 65, TileConfig::M64),
            // But one sequence of up to 4096 keys: m64.
            (15, 640, 1, TileConfig::M64),
            (11, 4096, 1, TileConfig::M64),
            (11, 4097, 1, TileConfig::M128DeepV),
        ] {
            assert_eq!(TileConfig::choose(q, kv, b), want, "{q} {kv} {b}");
        }
        // Two decode sequences among 70 (68 empty): m64, not m128.
        let mut qo70 = vec![0i32; 71];
        let mut kv70 = vec![0i32; 71];
        for i in 1..71 {
            qo70[i] = if i <= 2 { i as i32 } else { 2 };
            kv70[i] = if i <= 2 { 4096 * i as i32 } else { 8192 };
        }
        let sparse = HostPlan::new(&Dims::new(2, 8192, 70, 8192), &qo70, &kv70, None).unwrap();
        assert_eq!(sparse.config, TileConfig::M64);
        // The same tiles in more sequences than the deep ring's plan holds.
        assert_eq!(
            TileConfig::choose(65 * 128, 65 * 4096, 65),
            TileConfig::M128
        );
        // One sequence: m64 below 704 keys, else the deep ring.
        assert_eq!(TileConfig::choose(448, 448, 1), TileConfig::M64);
        assert_eq!(TileConfig::choose(703, 703, 1), TileConfig::M64);
        assert_eq!(TileConfig::choose(64, 16384, 1), TileConfig::M128Deep);
        // Batches of up to 64: short tiles (a tile's mean keys 320, 559)
        // take the V-deep ring too; more sequences, m128.
        assert_eq!(TileConfig::choose(1280, 1280, 2), TileConfig::M128DeepV);
        assert_eq!(TileConfig::choose(2236, 2236, 2), TileConfig::M128DeepV);
        assert_eq!(TileConfig::choose(65 * 512, 65 * 512, 65), TileConfig::M128);
        assert_eq!(
            TileConfig::choose(2 * 1307, 2 * 1307, 2),
            TileConfig::M128DeepV
        );
        // One sequence with tiles of 512 to 3071 keys: the V-deep ring.
        assert_eq!(TileConfig::choose(1024, 1024, 1), TileConfig::M128DeepV);
        assert_eq!(TileConfig::choose(4096, 4096, 1), TileConfig::M128DeepV);
        assert_eq!(TileConfig::choose(6142, 6142, 1), TileConfig::M128DeepV);
        assert_eq!(TileConfig::choose(6144, 6144, 1), TileConfig::M128Deep);
        assert_eq!(
            TileConfig::choose(16 * 256, 16 * 2048, 16),
            TileConfig::M128DeepV
        );
        assert_eq!(TileConfig::choose(1022, 1022, 1), TileConfig::M128Deep);
        let one = HostPlan::new(
            &Dims::new(448, 3000, 2, 600),
            &[0, 0, 448],
            &[0, 152, 600],
            None,
        )
        .unwrap();
        assert_eq!(one.config, TileConfig::M64);
        let few_keys = HostPlan::new(
            &Dims::new(1200, 300, 2, 300),
            &[0, 600, 1200],
            &[0, 100, 300],
            None,
        )
        .unwrap();
        assert_eq!(few_keys.config, TileConfig::M64);
        let short =
            HostPlan::new(&Dims::new(20, 40, 2, 20), &[0, 10, 20], &[0, 10, 20], None).unwrap();
        assert_eq!(short.config, TileConfig::M64);
        // One long sequence among empty ones: a deep ring or m192 only
        // while its plan holds the call's sequences.
        let lone = |batch: usize, kv_len: i32| {
            let qo: Vec<i32> = (0..=batch).map(|b| if b == 0 { 0 } else { 256 }).collect();
            let kv: Vec<i32> = (0..=batch)
                .map(|b| if b == 0 { 0 } else { kv_len })
                .collect();
            let dims = Dims::new(256, kv_len as usize, batch, kv_len as usize);
            HostPlan::new(&dims, &qo, &kv, None).unwrap().config
        };
        assert_eq!(lone(64, 16384), TileConfig::M192);
        assert_eq!(lone(64, 2048), TileConfig::M128DeepV);
        assert_eq!(lone(65, 16384), TileConfig::M128);
        assert_eq!(lone(65, 2048), TileConfig::M128);
        // Bad contents are typed errors, page ids included when given.
        let bad = HostPlan::new(&d, &[0, 600, 400, 400, 1200], &kv, None);
        assert!(
            matches!(
                bad,
                Err(Error::IndptrDecreasing {
                    name: "qo_indptr",
                    ..
                })
            ),
            "{bad:?}"
        );
        let idx: Vec<i32> = (0..1210).map(|i| if i == 7 { 3000 } else { i }).collect();
        let bad = HostPlan::new(&d, &qo, &kv, Some(&idx));
        assert!(
            matches!(
                bad,
                Err(Error::PageOutOfRange {
                    index: 7,
                    page: 3000,
                    ..
                })
            ),
            "{bad:?}"
        );
        let empty = HostPlan::new(&Dims::new(0, 0, 0, 0), &[0], &[0], Some(&[])).unwrap();
        assert_eq!(empty.config, TileConfig::M64);
    }

    /// `M192` where it was measured faster (seventeenth session, call 2;
    /// eighteenth session, calls 1-3), and not where it was slower or
    /// within 1.5%.
    #[test]
    fn prefers_m192_on_the_measured_shapes() {
        let indptrs = |lens: &[(i32, i32)]| {
            let (mut qo, mut kv) = (vec![0], vec![0]);
            for &(q, k) in lens {
                qo.push(qo.last().unwrap() + q);
                kv.push(kv.last().unwrap() + k);
            }
            (qo, kv)
        };
        let prefers = |lens: &[(i32, i32)]| {
            let (qo, kv) = indptrs(lens);
            TileConfig::prefers_m192(&qo, &kv)
        };
        let even = |b: usize, q: i32, kv: i32| vec![(q, kv); b];
        // (batch, queries, keys) per sequence: even lengths.
        let faster = [
            (4, 64, 16384),
            (2, 64, 32768),
            (1, 256, 16384),
            (16, 64, 1024),
            (1, 128, 32768),
            (2, 512, 4096),
            (1, 256, 8192),
            (4, 128, 4096),
            (2, 256, 4096),
            (8, 128, 8192),
            (1, 512, 16384),
            // Thirty-eighth session (H100): 5-7 keys a query.
            (1, 384, 2560),
            (1, 448, 3072),
            (1, 512, 3584),
            // One sequence in one wave of 128-row tiles, the model at
            // 0.96-1.03 (H100: 0.89-0.93) ...
            (1, 256, 5500),
            (1, 256, 4096),
            (1, 448, 3584),
            (1, 384, 4608),
            // ... and at 0.954 (H200: 0.989-0.994, twenty-third session).
            (1, 512, 32768),
        ];
        let not = [
            (8, 32, 4096),
            (1, 1000, 8000),
            (16, 128, 1024),
            (2, 32, 16384),
            (8, 256, 1024),
            (8, 16, 4096),
            (4, 16, 32768),
            (16, 16, 16384),
            (1, 1024, 1024),
            (1, 2048, 2048),
            (16, 2048, 2048),
            (1, 32768, 32768),
            (1, 1024, 8192),
            (65, 64, 16384),
            // Thirty-eighth session (H100): 1.05-1.09x (320 queries), and
            // below 5 keys a query.
            (1, 320, 3072),
            (1, 320, 5500),
            (1, 512, 2048),
        ];
        for (b, q, kv) in faster {
            assert!(prefers(&even(b, q, kv)), "{b} x ({q}, {kv})");
        }
        for (b, q, kv) in not {
            assert!(!prefers(&even(b, q, kv)), "{b} x ({q}, {kv})");
        }
        // Held out, lengths that differ within the call: faster on m192 ...
        let faster: [&[(i32, i32)]; 3] = [
            &[(57, 20002), (54, 19998)],
            &[(55, 10089), (55, 9984), (55, 9949), (56, 10000)],
            &[(59, 32316), (63, 31046)],
        ];
        for l in faster {
            assert!(prefers(l), "{l:?}");
        }
        // ... and 1.02-1.25x slower, among them the 128-row tiles in one
        // wave where m192's units are longer (the last three).
        let slower: [&[(i32, i32)]; 8] = [
            &[(50, 23994), (54, 36140)],
            &[(61, 6709), (61, 9244), (59, 11659), (52, 6721), (75, 6356)],
            &[
                (41, 7752),
                (52, 8087),
                (55, 8100),
                (59, 8825),
                (46, 7791),
                (58, 5205),
            ],
            &[(198, 22112), (165, 22207)],
            &[
                (90, 21911),
                (95, 20847),
                (98, 25290),
                (82, 25172),
                (81, 21995),
                (83, 19911),
            ],
            &[(184, 24169)],
            &[(191, 11778)],
            &[(58, 11869), (59, 12073), (52, 11847)],
        ];
        for l in slower {
            assert!(!prefers(l), "{l:?}");
        }
        // From the means alone, one sequence only.
        assert_eq!(TileConfig::choose(512, 16384, 1), TileConfig::M192);
        assert_ne!(TileConfig::choose(1024, 16384, 2), TileConfig::M192);
        // Malformed indptrs: never m192, no panic.
        assert!(!TileConfig::prefers_m192(&[0, 256], &[0, 4096, 8192]));
        assert!(!TileConfig::prefers_m192(&[0, 256, 100], &[0, 4096, 8192]));
        assert!(!TileConfig::prefers_m192(&[5, 261], &[0, 4096]));
        assert!(!TileConfig::prefers_m192(&[i32::MIN, i32::MAX], &[0, 4096]));
        assert!(!TileConfig::prefers_m192(&[], &[]));
        // The host plan leaves out the sequence without queries.
        let qo = [0, 256, 256, 512];
        let kv = [0, 4096, 4112, 8208];
        let d = Dims::new(512, 8208, 3, 8208);
        assert_eq!(
            HostPlan::new(&d, &qo, &kv, None).unwrap().config,
            TileConfig::M192
        );
    }

    /// Every sequence's tile range holds the tiles it needs, for any lengths.
    #[test]
    fn tile_ranges_cover_every_sequence() {
        for block_m in [64, 128, 192] {
            let mut qo = vec![0usize];
            for (i, len) in [0usize, 1, 5, 21, 22, 43, 128, 129, 0, 700, 3]
                .iter()
                .enumerate()
            {
                qo.push(qo[i] + len);
            }
            for b in 0..qo.len() - 1 {
                let have = tile_start(qo[b + 1], b + 1, block_m) - tile_start(qo[b], b, block_m);
                let need = (GROUP_SIZE * (qo[b + 1] - qo[b])).div_ceil(block_m);
                assert!(
                    have >= need && have <= need + 1,
                    "b={b} have={have} need={need}"
                );
            }
        }
    }
}
