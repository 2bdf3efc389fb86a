//! Exact CPU backend: the operation of SPEC.md computed directly, as the
//! reference every other backend is checked against.
//!
//! It is "exact" in the sense that it does what SPEC.md writes, in one pass per
//! quantity: one maximum, one sum and one lse per (token, head), scores in fp32
//! (products of bf16 are exact in fp32), the softmax denominator summed in
//! fp64, the weighted sum of values accumulated in fp32 and rounded to bf16
//! (round to nearest even) once at the end. There is no online rescaling.
//!
//! Layout of the work: the visible K/V rows of every sequence are gathered once
//! (bf16 -> f32) into contiguous buffers; then tiles of 8 tokens of
//! one sequence run in parallel (rayon). Inside a tile, for each kv head, each
//! gathered K/V row is loaded once for all 6 query heads of the group and all
//! tokens of the tile, in blocks of 64 keys that stay in cache.
//!
//! Inputs that are not finite are not refused (the values of `q`, `k_cache`
//! and `v_cache` are data, not shapes); they flow through IEEE arithmetic. See
//! `docs/INPUTS.md` for the outcome of each case.

use crate::error::Result;
use crate::problem::{
    check_len, sequences, validate, HostProblem, Output, Seq, GROUP_SIZE, HEAD_DIM, NUM_KV_HEADS,
    NUM_QO_HEADS,
};
use half::bf16;
use rayon::prelude::*;

/// Tokens per parallel tile (each tile computes `TILE_TOKENS * 24` rows).
const TILE_TOKENS: usize = 8;
/// Keys per cache block inside a tile: 64 keys x 512 B of f32 K (or V) = 32 KiB.
const KEY_BLOCK: usize = 64;
/// Elements of one token's K (or V) row over all kv heads.
const KV_ROW: usize = NUM_KV_HEADS * HEAD_DIM;
/// Elements of one token's q (or output) row over all query heads.
const Q_ROW: usize = NUM_QO_HEADS * HEAD_DIM;
/// Query rows of one kv head in one tile.
const TILE_ROWS: usize = TILE_TOKENS * GROUP_SIZE;

/// Computes the operation on the host (all cores, through rayon). Validates
/// `p` first.
///
/// ```
/// use pagedattn::{cpu_attention, half::bf16, Dims, HostProblem};
/// // One sequence of 2 query tokens over 3 keys (a 1-key cached prefix).
/// let dims = Dims::new(2, 3, 1, 3);
/// let q = vec![bf16::from_f32(0.5); dims.q_elems()];
/// let k = vec![bf16::from_f32(0.25); dims.kv_elems()];
/// let v = vec![bf16::from_f32(1.0); dims.kv_elems()];
/// let p = HostProblem {
///     dims, q: &q, k_cache: &k, v_cache: &v,
///     qo_indptr: &[0, 2], kv_indptr: &[0, 3], kv_indices: &[2, 0, 1],
///     sm_scale: pagedattn::problem::default_sm_scale(),
/// };
/// let o = cpu_attention(&p)?;
/// assert_eq!(o.out.len(), 2 * 24 * 128);
/// assert!(o.out.iter().all(|x| x.to_f32() == 1.0)); // every value row is 1
/// // Equal scores: the last token sees 3 keys, lse = s + log2(3).
/// let s = 0.5 * 0.25 * 128.0 * p.sm_scale / std::f32::consts::LN_2;
/// assert!((o.lse[24] - (s + 3f32.log2())).abs() < 1e-4);
/// # Ok::<(), pagedattn::Error>(())
/// ```
pub fn attention(p: &HostProblem<'_>) -> Result<Output> {
    validate(p)?;
    let mut out = vec![bf16::ZERO; p.dims.q_elems()];
    let mut lse = vec![f32::NEG_INFINITY; p.dims.lse_elems()];
    compute(p, &mut out, &mut lse);
    Ok(Output { out, lse })
}

/// Like [`attention`], writing into caller buffers: `out` of `total_q * 24 * 128`
/// elements and `lse` of `total_q * 24` (checked; `Error::BufferLength` names
/// `"output"` or `"lse"`). Every element of both is written.
pub fn attention_into(p: &HostProblem<'_>, out: &mut [bf16], lse: &mut [f32]) -> Result<()> {
    validate(p)?;
    check_len("output", p.dims.q_elems(), out.len())?;
    check_len("lse", p.dims.lse_elems(), lse.len())?;
    out.fill(bf16::ZERO);
    lse.fill(f32::NEG_INFINITY);
    compute(p, out, lse);
    Ok(())
}

/// One parallel unit: tokens `t0 .. t0 + n` (0-based in the sequence) of `seq`,
/// and the slices of the output that belong to them.
struct Tile<'o> {
    seq: Seq,
    t0: usize,
    out: &'o mut [bf16],
    lse: &'o mut [f32],
}

/// Per-worker buffers, reused across tiles.
#[derive(Default)]
struct Scratch {
    /// One kv head's q rows of the tile, f32: `[TILE_TOKENS * 6][128]`.
    q: Vec<f32>,
    /// Scores, then probabilities: `[TILE_TOKENS * 6][ld]`.
    s: Vec<f32>,
    /// Weighted value sums: `[TILE_TOKENS * 6][128]`.
    acc: Vec<f32>,
}

/// The body of [`attention`] on validated inputs, `out` zeroed and `lse` at -inf.
fn compute(p: &HostProblem<'_>, out: &mut [bf16], lse: &mut [f32]) {
    let seqs = sequences(p.qo_indptr, p.kv_indptr);
    let (kf, vf) = gather(p);

    // Cut the outputs into disjoint per-tile slices (sequences are consecutive
    // ranges of rows, so this is a left-to-right walk).
    let mut tiles = Vec::new();
    let (mut out_rest, mut lse_rest) = (out, lse);
    for s in &seqs {
        let (o, orest) = out_rest.split_at_mut(s.q_len * Q_ROW);
        let (l, lrest) = lse_rest.split_at_mut(s.q_len * NUM_QO_HEADS);
        out_rest = orest;
        lse_rest = lrest;
        if s.kv_len == 0 {
            continue; // every row sees no key: already 0 / -inf
        }
        for (i, (o, l)) in o
            .chunks_mut(TILE_TOKENS * Q_ROW)
            .zip(l.chunks_mut(TILE_TOKENS * NUM_QO_HEADS))
            .enumerate()
        {
            tiles.push(Tile {
                seq: *s,
                t0: i * TILE_TOKENS,
                out: o,
                lse: l,
            });
        }
    }

    let ctx = Ctx {
        q: p.q,
        kf: &kf,
        vf: &vf,
        sm_scale: p.sm_scale,
    };
    tiles
        .par_iter_mut()
        .for_each_init(Scratch::default, |scratch, tile| ctx.tile(scratch, tile));
}

/// Gathers every sequence's K and V rows, in `kv_indices` order, as f32:
/// `[num_kv_indices][4][128]` each. Repeated page ids are gathered repeatedly.
fn gather(p: &HostProblem<'_>) -> (Vec<f32>, Vec<f32>) {
    let n = p.kv_indices.len() * KV_ROW;
    let mut kf = vec![0f32; n];
    let mut vf = vec![0f32; n];
    kf.par_chunks_mut(KV_ROW)
        .zip(vf.par_chunks_mut(KV_ROW))
        .zip(p.kv_indices.par_iter())
        .for_each(|((kd, vd), &page)| {
            // Validated: 0 <= page < num_pages.
            let base = page as usize * KV_ROW;
            for (d, s) in kd.iter_mut().zip(&p.k_cache[base..base + KV_ROW]) {
                *d = s.to_f32();
            }
            for (d, s) in vd.iter_mut().zip(&p.v_cache[base..base + KV_ROW]) {
                *d = s.to_f32();
            }
        });
    (kf, vf)
}

/// Read-only state shared by all tiles.
struct Ctx<'a> {
    q: &'a [bf16],
    kf: &'a [f32],
    vf: &'a [f32],
    sm_scale: f32,
}

impl Ctx<'_> {
    fn tile(&self, sc: &mut Scratch, tile: &mut Tile<'_>) {
        let seq = tile.seq;
        let ntok = tile.lse.len() / NUM_QO_HEADS;
        // Keys each token sees (non-decreasing in the token).
        let vis: Vec<usize> = (0..ntok).map(|t| seq.visible(tile.t0 + t)).collect();
        let nmax = vis.last().copied().unwrap_or(0);
        if nmax == 0 {
            return; // no token of the tile sees a key
        }
        let rows = ntok * GROUP_SIZE;
        let ld = nmax;
        sc.q.resize(TILE_ROWS * HEAD_DIM, 0.0);
        sc.acc.resize(TILE_ROWS * HEAD_DIM, 0.0);
        sc.s.resize(TILE_ROWS * ld, 0.0);

        for g in 0..NUM_KV_HEADS {
            // q rows of heads g*6 .. g*6+6 for each token, f32.
            for t in 0..ntok {
                let src = (seq.q_start + tile.t0 + t) * Q_ROW + g * GROUP_SIZE * HEAD_DIM;
                let dst = &mut sc.q[t * GROUP_SIZE * HEAD_DIM..(t + 1) * GROUP_SIZE * HEAD_DIM];
                for (d, s) in dst
                    .iter_mut()
                    .zip(&self.q[src..src + GROUP_SIZE * HEAD_DIM])
                {
                    *d = s.to_f32();
                }
            }
            let krow = |j: usize| -> &[f32] {
                let o = (seq.kv_start + j) * KV_ROW + g * HEAD_DIM;
                &self.kf[o..o + HEAD_DIM]
            };
            let vrow = |j: usize| -> &[f32] {
                let o = (seq.kv_start + j) * KV_ROW + g * HEAD_DIM;
                &self.vf[o..o + HEAD_DIM]
            };

            // Pass 1: scores s = sm_scale * dot(q, k) for visible keys.
            for kb in (0..nmax).step_by(KEY_BLOCK) {
                let ke = (kb + KEY_BLOCK).min(nmax);
                for (t, &v) in vis.iter().enumerate() {
                    for j in kb..ke.min(v) {
                        let k = krow(j);
                        for h in 0..GROUP_SIZE {
                            let r = t * GROUP_SIZE + h;
                            let q = &sc.q[r * HEAD_DIM..(r + 1) * HEAD_DIM];
                            sc.s[r * ld + j] = self.sm_scale * dot(q, k);
                        }
                    }
                }
            }

            // Pass 2: max, probabilities (unnormalised, in place), lse.
            let mut inv_sum = [0f32; TILE_ROWS];
            for (r, inv) in inv_sum[..rows].iter_mut().enumerate() {
                let t = r / GROUP_SIZE;
                let h = g * GROUP_SIZE + r % GROUP_SIZE;
                let n = vis[t];
                if n == 0 {
                    continue;
                }
                let srow = &mut sc.s[r * ld..r * ld + n];
                // NaN-ignoring max: a NaN score still reaches the sum below.
                let m = srow.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                let mut sum = 0f64;
                for x in srow.iter_mut() {
                    *x = (*x - m).exp();
                    sum += *x as f64;
                }
                tile.lse[t * NUM_QO_HEADS + h] =
                    ((m as f64 + sum.ln()) / std::f64::consts::LN_2) as f32;
                *inv = (1.0 / sum) as f32;
            }

            // Pass 3: acc = sum_j p_j * v_j.
            sc.acc[..rows * HEAD_DIM].fill(0.0);
            for kb in (0..nmax).step_by(KEY_BLOCK) {
                let ke = (kb + KEY_BLOCK).min(nmax);
                for (t, &v) in vis.iter().enumerate() {
                    for j in kb..ke.min(v) {
                        let vr = vrow(j);
                        for h in 0..GROUP_SIZE {
                            let r = t * GROUP_SIZE + h;
                            let w = sc.s[r * ld + j];
                            axpy(&mut sc.acc[r * HEAD_DIM..(r + 1) * HEAD_DIM], w, vr);
                        }
                    }
                }
            }

            // Normalise and store (rows that see no key keep 0 / -inf).
            for (r, &inv) in inv_sum[..rows].iter().enumerate() {
                let t = r / GROUP_SIZE;
                if vis[t] == 0 {
                    continue;
                }
                let h = g * GROUP_SIZE + r % GROUP_SIZE;
                let dst = &mut tile.out[(t * NUM_QO_HEADS + h) * HEAD_DIM..][..HEAD_DIM];
                for (d, &a) in dst
                    .iter_mut()
                    .zip(&sc.acc[r * HEAD_DIM..(r + 1) * HEAD_DIM])
                {
                    *d = bf16::from_f32(a * inv);
                }
            }
        }
    }
}

/// Lanes of independent partial sums: written out so the loop vectorises
/// without reassociating floating-point adds behind the programmer's back.
const LANES: usize = 16;

#[inline(always)]
fn dot(a: &[f32], b: &[f32]) -> f32 {
    // Re-slicing to the fixed length lets the compiler drop bounds checks.
    let (a, b) = (&a[..HEAD_DIM], &b[..HEAD_DIM]);
    let mut acc = [0f32; LANES];
    for c in (0..HEAD_DIM).step_by(LANES) {
        for l in 0..LANES {
            acc[l] += a[c + l] * b[c + l];
        }
    }
    acc.iter().sum()
}

#[inline(always)]
fn axpy(y: &mut [f32], w: f32, x: &[f32]) {
    let (y, x) = (&mut y[..HEAD_DIM], &x[..HEAD_DIM]);
    for (y, x) in y.iter_mut().zip(x) {
        *y += w * x;
    }
}

/// Queries per parallel unit of [`naive_attention`].
const NAIVE_TOKENS: usize = 16;

/// One K or V row of one kv head, widened to f64.
fn row_f64(cache: &[bf16], page: i32, g: usize) -> [f64; HEAD_DIM] {
    let src = &cache[(page as usize * NUM_KV_HEADS + g) * HEAD_DIM..][..HEAD_DIM];
    let mut r = [0f64; HEAD_DIM];
    for (d, s) in r.iter_mut().zip(src) {
        *d = s.to_f64();
    }
    r
}

/// The operation written out as SPEC.md states it, one query token at a
/// time, in f64: scores over the keys it sees (each key row read through its
/// page id, no gathering, no tiling), a max-subtracted softmax, the weighted
/// sum of the values, one rounding to bf16. Slower than [`attention`]
/// (several times); it exists to check the fast paths independently on small
/// calls. Validates `p` first.
pub fn naive_attention(p: &HostProblem<'_>) -> Result<Output> {
    validate(p)?;
    let mut out = vec![bf16::ZERO; p.dims.q_elems()];
    let mut lse = vec![f32::NEG_INFINITY; p.dims.lse_elems()];
    // The sequence of every query token.
    let none = Seq {
        q_start: 0,
        q_len: 0,
        kv_start: 0,
        kv_len: 0,
    };
    let mut seq_of = vec![none; p.dims.total_q];
    for s in sequences(p.qo_indptr, p.kv_indptr) {
        seq_of[s.q_start..s.q_start + s.q_len].fill(s);
    }
    out.par_chunks_mut(NAIVE_TOKENS * Q_ROW)
        .zip(lse.par_chunks_mut(NAIVE_TOKENS * NUM_QO_HEADS))
        .enumerate()
        .for_each(|(c, (out, lse))| {
            // Scores of the 6 query heads of one kv head: [6][n].
            let mut scores: Vec<f64> = Vec::new();
            for (i, lse) in lse.chunks_mut(NUM_QO_HEADS).enumerate() {
                let t = c * NAIVE_TOKENS + i;
                let s = seq_of[t];
                let n = s.visible(t - s.q_start);
                if n == 0 {
                    continue; // 0 and -inf
                }
                let page = |j: usize| p.kv_indices[s.kv_start + j];
                for g in 0..NUM_KV_HEADS {
                    let heads = g * GROUP_SIZE..(g + 1) * GROUP_SIZE;
                    let q: Vec<[f64; HEAD_DIM]> = heads
                        .clone()
                        .map(|h| {
                            let mut r = [0f64; HEAD_DIM];
                            let src = &p.q[(t * NUM_QO_HEADS + h) * HEAD_DIM..][..HEAD_DIM];
                            for (d, s) in r.iter_mut().zip(src) {
                                *d = s.to_f64();
                            }
                            r
                        })
                        .collect();
                    // s_j = sm_scale * dot(q, k_j)
                    scores.clear();
                    scores.resize(GROUP_SIZE * n, 0.0);
                    for j in 0..n {
                        let k = row_f64(p.k_cache, page(j), g);
                        for (hq, q) in q.iter().enumerate() {
                            // Eight running sums so that the adds do not
                            // queue (the order does not matter in f64 here).
                            let mut dot = [0f64; 8];
                            for (q, k) in q.chunks_exact(8).zip(k.chunks_exact(8)) {
                                for l in 0..8 {
                                    dot[l] += q[l] * k[l];
                                }
                            }
                            scores[hq * n + j] = p.sm_scale as f64 * dot.iter().sum::<f64>();
                        }
                    }
                    // lse = log2(sum_j exp(s_j)), weights exp(s_j - ln2 * lse).
                    let mut acc = [[0f64; HEAD_DIM]; GROUP_SIZE];
                    for (hq, row) in scores.chunks_mut(n).enumerate() {
                        let m = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                        let z: f64 = row.iter().map(|x| (x - m).exp()).sum();
                        lse[g * GROUP_SIZE + hq] = ((m + z.ln()) / std::f64::consts::LN_2) as f32;
                        for x in row.iter_mut() {
                            *x = (*x - m).exp() / z;
                        }
                    }
                    // out = sum_j w_j * v_j
                    for j in 0..n {
                        let v = row_f64(p.v_cache, page(j), g);
                        for (hq, acc) in acc.iter_mut().enumerate() {
                            let w = scores[hq * n + j];
                            for (a, v) in acc.iter_mut().zip(&v) {
                                *a += w * v;
                            }
                        }
                    }
                    for (hq, h) in heads.enumerate() {
                        let o = &mut out[(i * NUM_QO_HEADS + h) * HEAD_DIM..][..HEAD_DIM];
                        for (o, a) in o.iter_mut().zip(acc[hq]) {
                            *o = bf16::from_f64(a);
                        }
                    }
                }
            }
        });
    Ok(Output { out, lse })
}
