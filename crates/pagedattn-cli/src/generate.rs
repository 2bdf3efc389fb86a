//! Seeded random batches and hand-picked edge cases, for tests of every
//! backend. Only the index arrays are generated here (as [`Workload`]s); the
//! tensors come from [`Workload::inputs`].
//!
//! The random batches are built to reach the corners a real serving batch
//! rarely shows: sequences with no queries or no keys, single tokens,
//! `kv_len` above (a cached prefix) and below (rows that see no key) `q_len`,
//! page ids shuffled, repeated inside a sequence and shared between sequences,
//! and page pools larger than what the batch reads.

use crate::workload::Workload;
use pagedattn::problem::default_sm_scale;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Size limits of a random batch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BatchSpec {
    /// Largest number of sequences; each batch draws `0..=max_batch`
    /// (0 rarely), or exactly this many when `exact_batch` is set.
    pub max_batch: usize,
    /// Use exactly `max_batch` sequences.
    pub exact_batch: bool,
    /// Each sequence's `q_len` is in `0..=max_q_len`.
    pub max_q_len: usize,
    /// A cached prefix adds up to this many keys beyond `q_len`.
    pub max_extra_kv: usize,
    /// Largest number of pages in the pool that no sequence reads.
    pub max_spare_pages: usize,
    /// `sm_scale` of the call.
    pub sm_scale: f32,
}

impl Default for BatchSpec {
    /// Small batches: up to 6 sequences of up to 40 tokens, prefixes up to 40.
    fn default() -> Self {
        BatchSpec {
            max_batch: 6,
            exact_batch: false,
            max_q_len: 40,
            max_extra_kv: 40,
            max_spare_pages: 16,
            sm_scale: default_sm_scale(),
        }
    }
}

/// The lengths of one sequence.
struct SeqPlan {
    q_len: usize,
    kv_len: usize,
}

/// A random batch, deterministic in `(seed, spec)`, named `random-<seed>`.
///
/// Per sequence, `q_len` is 0, 1, `max_q_len` or uniform (each kind with fixed
/// odds), and `kv_len` is equal to `q_len`, `q_len` plus a prefix, shorter
/// than `q_len` (down to 0), or 0. Pages: about a third of the sequences start
/// with a prefix of an earlier sequence's pages (a shared prefix); a few pages
/// are repeated inside a sequence; every other page is fresh, drawn from a
/// shuffled pool that may hold up to `max_spare_pages` pages nobody reads.
pub fn random_batch(seed: u64, spec: &BatchSpec) -> Workload {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let batch = if spec.exact_batch || spec.max_batch == 0 {
        spec.max_batch
    } else if rng.gen_bool(0.05) {
        0
    } else {
        rng.gen_range(1..=spec.max_batch)
    };

    let plans: Vec<SeqPlan> = (0..batch)
        .map(|_| {
            let q_len = match rng.gen_range(0..10) {
                0 => 0,
                1 => 1.min(spec.max_q_len),
                2 => spec.max_q_len,
                _ => rng.gen_range(0..=spec.max_q_len),
            };
            let kv_len = match rng.gen_range(0..10) {
                0..=3 => q_len,
                4..=6 => q_len + rng.gen_range(0..=spec.max_extra_kv),
                7 | 8 => rng.gen_range(0..=q_len),
                _ => 0,
            };
            SeqPlan { q_len, kv_len }
        })
        .collect();

    // Pages per sequence as slots (the n-th fresh page drawn), numbered
    // through the shuffled pool once its size is known.
    let mut fresh = 0usize;
    let mut slots: Vec<Vec<usize>> = Vec::with_capacity(batch);
    for plan in &plans {
        let mut s: Vec<usize> = Vec::with_capacity(plan.kv_len);
        // Shared prefix with an earlier sequence that has pages.
        let donors: Vec<usize> = (0..slots.len()).filter(|&d| !slots[d].is_empty()).collect();
        if plan.kv_len > 0 && !donors.is_empty() && rng.gen_bool(0.35) {
            let d = donors[rng.gen_range(0..donors.len())];
            let n = rng.gen_range(1..=plan.kv_len.min(slots[d].len()));
            s.extend_from_slice(&slots[d][..n]);
        }
        while s.len() < plan.kv_len {
            if !s.is_empty() && rng.gen_bool(0.08) {
                // The same page twice in one sequence.
                let r = s[rng.gen_range(0..s.len())];
                s.push(r);
            } else {
                s.push(fresh);
                fresh += 1;
            }
        }
        slots.push(s);
    }

    let spare = rng.gen_range(0..=spec.max_spare_pages);
    let num_pages = fresh + spare;
    let mut pool: Vec<i32> = (0..num_pages as i32).collect();
    pool.shuffle(&mut rng);

    let mut qo_indptr = vec![0i32];
    let mut kv_indptr = vec![0i32];
    let mut kv_indices = Vec::new();
    for (plan, s) in plans.iter().zip(&slots) {
        qo_indptr.push(qo_indptr[qo_indptr.len() - 1] + plan.q_len as i32);
        kv_indptr.push(kv_indptr[kv_indptr.len() - 1] + plan.kv_len as i32);
        kv_indices.extend(s.iter().map(|&n| pool[n]));
    }
    let total_q = plans.iter().map(|p| p.q_len).sum();
    Workload {
        name: format!("random-{seed}"),
        total_q,
        num_pages,
        qo_indptr,
        kv_indptr,
        kv_indices,
        sm_scale: spec.sm_scale,
    }
}

/// A workload from `(q_len, page ids)` per sequence, with `sm_scale`.
pub fn from_sequences(
    name: &str,
    num_pages: usize,
    seqs: &[(usize, Vec<i32>)],
    sm_scale: f32,
) -> Workload {
    let mut qo_indptr = vec![0i32];
    let mut kv_indptr = vec![0i32];
    let mut kv_indices = Vec::new();
    for (q_len, pages) in seqs {
        qo_indptr.push(qo_indptr[qo_indptr.len() - 1] + *q_len as i32);
        kv_indptr.push(kv_indptr[kv_indptr.len() - 1] + pages.len() as i32);
        kv_indices.extend_from_slice(pages);
    }
    Workload {
        name: name.to_string(),
        total_q: seqs.iter().map(|s| s.0).sum(),
        num_pages,
        qo_indptr,
        kv_indptr,
        kv_indices,
        sm_scale,
    }
}

/// A hand-picked case with the default scale.
fn case(name: &str, num_pages: usize, seqs: &[(usize, Vec<i32>)]) -> Workload {
    from_sequences(name, num_pages, seqs, default_sm_scale())
}

fn range(a: i32, b: i32) -> Vec<i32> {
    (a..b).collect()
}

/// Small hand-picked valid cases, each named for what it exercises.
///
/// Includes lengths that straddle the CUDA tile sizes (a tile is 128 packed
/// rows = 21⅓ tokens of 6 heads; a key block is 128 keys).
pub fn edge_cases() -> Vec<Workload> {
    vec![
        // A batch of 0 sequences: nothing to do, empty outputs.
        case("empty-batch", 0, &[]),
        // Pages exist but no sequence: still nothing to do.
        case("empty-batch-with-pages", 5, &[]),
        // Sequences, but none has a query: total_q == 0.
        case("no-queries", 6, &[(0, range(0, 3)), (0, range(3, 6))]),
        case("one-token", 1, &[(1, vec![0])]),
        // One query that sees 5 keys of a cached prefix.
        case("one-query-prefix", 8, &[(1, vec![7, 2, 5, 0, 3])]),
        // kv_len 0: every row sees no key.
        case("no-keys", 2, &[(3, vec![])]),
        // kv_len < q_len: rows 0..=2 see no key, row 3 sees 1, row 4 sees 2.
        case("kv-shorter-than-q", 4, &[(5, vec![1, 3])]),
        // kv_len > q_len: a 7-key prefix every query sees.
        case("cached-prefix", 12, &[(3, range(0, 10))]),
        // Two sequences share a 4-page prefix; a page repeats inside one.
        case(
            "repeated-pages",
            9,
            &[(4, vec![8, 1, 4, 6]), (6, vec![8, 1, 4, 6, 6, 2, 8, 0])],
        ),
        case("reversed-pages", 16, &[(16, (0..16).rev().collect())]),
        // The middle sequence has keys but no queries.
        case(
            "empty-sequence-between",
            20,
            &[(3, range(0, 3)), (0, range(3, 10)), (4, range(10, 16))],
        ),
        // All three length relations in one batch, with a kv_len 0 sequence.
        case(
            "mixed-relations",
            64,
            &[
                (5, range(0, 2)),
                (2, vec![]),
                (4, range(10, 30)),
                (6, range(40, 46)),
            ],
        ),
        // The unused pool is much larger than what is read; ids at both ends.
        case("sparse-pool", 1000, &[(3, vec![999, 0, 500])]),
        // 21, 22 and 43 tokens: around one and two 128-row tiles.
        case(
            "tile-boundaries",
            86,
            &[(21, range(0, 21)), (22, range(21, 43)), (43, range(43, 86))],
        ),
        // 130 keys: one past a 128-key block, and a longer prefix.
        case(
            "key-block-boundary",
            300,
            &[(2, range(0, 130)), (40, (130..300).rev().collect())],
        ),
    ]
}
