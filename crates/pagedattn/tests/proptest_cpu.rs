//! Property tests: (a) validation never panics on arbitrary index arrays and
//! lengths, and accepts exactly the calls an independent predicate (written
//! here from SPEC.md) calls valid; (b) the CPU backend matches a naive fp64
//! implementation (written here) on small random valid batches.

use pagedattn::backend::cpu;
use pagedattn::check::compare;
use pagedattn::half::bf16;
use pagedattn::problem::{validate, Dims, HostProblem, Output};
use pagedattn_cli::generate::{random_batch, BatchSpec};
use proptest::prelude::*;
use std::f64::consts::LN_2;

const H: usize = 24;
const KVH: usize = 4;
const D: usize = 128;

/// An arbitrary call: mostly well-formed, with each part replaced by
/// arbitrary values often enough that every check fails some of the time.
#[derive(Clone, Debug)]
struct Raw {
    dims: Dims,
    q_len: usize,
    kv_len: usize,
    qo: Vec<i32>,
    kv: Vec<i32>,
    idx: Vec<i32>,
    scale: f32,
}

/// Either `good` or, with probability `p`, an arbitrary alternative.
fn or_else<T: Clone + std::fmt::Debug + 'static>(
    good: T,
    p: f64,
    bad: impl Strategy<Value = T> + 'static,
) -> BoxedStrategy<T> {
    prop::option::weighted(p, bad)
        .prop_map(move |o| o.unwrap_or_else(|| good.clone()))
        .boxed()
}

fn indptr_from(lens: &[usize]) -> Vec<i32> {
    let mut v = vec![0i32];
    for &l in lens {
        v.push(v[v.len() - 1] + l as i32);
    }
    v
}

fn raw() -> impl Strategy<Value = Raw> {
    // (q_len, kv_len) per sequence, pool size, page ids.
    (
        prop::collection::vec((0usize..4, 0usize..4), 0..4),
        0usize..6,
        any::<u64>(),
    )
        .prop_flat_map(|(lens, num_pages, salt)| {
            let qo = indptr_from(&lens.iter().map(|l| l.0).collect::<Vec<_>>());
            let kv = indptr_from(&lens.iter().map(|l| l.1).collect::<Vec<_>>());
            let total_q = qo[qo.len() - 1] as usize;
            let nidx = kv[kv.len() - 1] as usize;
            let idx: Vec<i32> = (0..nidx)
                .map(|i| {
                    if num_pages == 0 {
                        0
                    } else {
                        ((salt >> (i % 60)) as usize % num_pages) as i32
                    }
                })
                .collect();
            // An arbitrary vector, or the good one with one entry changed.
            let arb_vec = |good: Vec<i32>, n: usize| {
                let poked = good.clone();
                or_else(
                    good,
                    0.2,
                    prop_oneof![
                        prop::collection::vec(-3i32..12, 0..n),
                        (any::<prop::sample::Index>(), -3i32..12).prop_map(move |(i, x)| {
                            let mut v = poked.clone();
                            if !v.is_empty() {
                                let i = i.index(v.len());
                                v[i] = x;
                            }
                            v
                        }),
                    ],
                )
            };
            let geometry =
                |good: usize| or_else(good, 0.03, prop_oneof![0usize..300, Just(good * 2)]);
            let count = |good: usize| {
                or_else(
                    good,
                    0.1,
                    prop_oneof![0usize..12, Just(i32::MAX as usize + 1), Just(usize::MAX)],
                )
            };
            let dims = (
                count(total_q),
                count(num_pages),
                count(lens.len()),
                count(nidx),
                geometry(24),
                geometry(4),
                geometry(128),
                geometry(1),
            )
                .prop_map(
                    |(total_q, num_pages, batch, num_kv_indices, h, kvh, d, ps)| Dims {
                        total_q,
                        num_pages,
                        batch,
                        num_kv_indices,
                        num_qo_heads: h,
                        num_kv_heads: kvh,
                        head_dim: d,
                        page_size: ps,
                    },
                );
            let scale = or_else(
                0.088f32,
                0.1,
                prop_oneof![
                    Just(f32::NAN),
                    Just(f32::INFINITY),
                    Just(f32::NEG_INFINITY),
                    Just(0.0),
                    -2.0f32..2.0
                ],
            );
            (
                dims,
                or_else(0isize, 0.1, -2isize..3),
                or_else(0isize, 0.1, -2isize..3),
                arb_vec(qo, 6),
                arb_vec(kv, 6),
                arb_vec(idx, 8),
                scale,
            )
                .prop_map(|(dims, dq, dkv, qo, kv, idx, scale)| {
                    // Buffer lengths: what the declared dims need, give or
                    // take; never allocate for absurd declared sizes.
                    let len = |need: Option<usize>, delta: isize| match need {
                        Some(n) if n <= 1 << 16 => (n as isize + delta).max(0) as usize,
                        _ => 0,
                    };
                    let q_need = dims
                        .total_q
                        .checked_mul(dims.num_qo_heads)
                        .and_then(|x| x.checked_mul(dims.head_dim));
                    let kv_need = dims
                        .num_pages
                        .checked_mul(dims.page_size)
                        .and_then(|x| x.checked_mul(dims.num_kv_heads))
                        .and_then(|x| x.checked_mul(dims.head_dim));
                    Raw {
                        q_len: len(q_need, dq),
                        kv_len: len(kv_need, dkv),
                        dims,
                        qo,
                        kv,
                        idx,
                        scale,
                    }
                })
        })
}

/// SPEC.md's validity conditions, written without the library's helpers.
fn is_valid(r: &Raw) -> bool {
    let d = &r.dims;
    let lim = i32::MAX as usize;
    let geometry =
        d.num_qo_heads == 24 && d.num_kv_heads == 4 && d.head_dim == 128 && d.page_size == 1;
    let counts =
        d.total_q <= lim && d.num_pages <= lim && d.batch <= lim && d.num_kv_indices <= lim;
    if !(geometry && counts) {
        return false;
    }
    let lengths = r.q_len == d.total_q * 3072
        && r.kv_len == d.num_pages * 512
        && r.idx.len() == d.num_kv_indices
        && r.qo.len() == d.batch + 1
        && r.kv.len() == d.batch + 1;
    if !lengths {
        return false;
    }
    let monotone = |v: &[i32]| v.windows(2).all(|w| w[0] <= w[1]);
    let indptrs = r.qo[0] == 0
        && r.kv[0] == 0
        && monotone(&r.qo)
        && monotone(&r.kv)
        && r.qo[d.batch] as i64 == d.total_q as i64
        && r.kv[d.batch] as i64 == d.num_kv_indices as i64;
    indptrs
        && r.idx
            .iter()
            .all(|&p| p >= 0 && (p as i64) < d.num_pages as i64)
        && r.scale.is_finite()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn validate_accepts_exactly_valid_calls(r in raw()) {
        let q = vec![bf16::ZERO; r.q_len];
        let kv = vec![bf16::ZERO; r.kv_len];
        let p = HostProblem {
            dims: r.dims,
            q: &q,
            k_cache: &kv,
            v_cache: &kv,
            qo_indptr: &r.qo,
            kv_indptr: &r.kv,
            kv_indices: &r.idx,
            sm_scale: r.scale,
        };
        let got = validate(&p);
        prop_assert_eq!(got.is_ok(), is_valid(&r), "{:?}", got);
        // The backend agrees with validate, and runs what validate accepts.
        match (got, cpu::attention(&p)) {
            (Ok(()), Ok(o)) => {
                prop_assert_eq!(o.out.len(), r.q_len);
                prop_assert_eq!(o.lse.len(), r.q_len / 128);
            }
            (Err(a), Err(b)) => prop_assert_eq!(format!("{a:?}"), format!("{b:?}")),
            (a, b) => prop_assert!(false, "validate {:?} but attention {:?}", a, b.map(|_| ())),
        }
    }
}

/// A naive fp64 implementation, straight from SPEC.md (independent of
/// `src/backend/cpu.rs`).
fn naive(p: &HostProblem<'_>) -> Output {
    let mut out = vec![bf16::ZERO; p.dims.total_q * H * D];
    let mut lse = vec![f32::NEG_INFINITY; p.dims.total_q * H];
    for b in 0..p.qo_indptr.len() - 1 {
        let (q0, q1) = (p.qo_indptr[b] as i64, p.qo_indptr[b + 1] as i64);
        let (k0, k1) = (p.kv_indptr[b] as i64, p.kv_indptr[b + 1] as i64);
        let delta = (k1 - k0) - (q1 - q0);
        for t in q0..q1 {
            let i = t - q0;
            for h in 0..H {
                let g = h / 6;
                let row = t as usize * H + h;
                let keys: Vec<usize> = (0..k1 - k0)
                    .filter(|&j| j <= i + delta)
                    .map(|j| p.kv_indices[(k0 + j) as usize] as usize)
                    .collect();
                if keys.is_empty() {
                    continue;
                }
                let s: Vec<f64> = keys
                    .iter()
                    .map(|&pg| {
                        let dot: f64 = (0..D)
                            .map(|d| {
                                p.q[row * D + d].to_f64()
                                    * p.k_cache[(pg * KVH + g) * D + d].to_f64()
                            })
                            .sum();
                        p.sm_scale as f64 * dot
                    })
                    .collect();
                let m = s.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
                let z: f64 = s.iter().map(|x| (x - m).exp()).sum();
                lse[row] = ((m + z.ln()) / LN_2) as f32;
                for d in 0..D {
                    let acc: f64 = keys
                        .iter()
                        .zip(&s)
                        .map(|(&pg, x)| {
                            (x - m).exp() / z * p.v_cache[(pg * KVH + g) * D + d].to_f64()
                        })
                        .sum();
                    out[row * D + d] = bf16::from_f64(acc);
                }
            }
        }
    }
    Output { out, lse }
}

fn spec() -> impl Strategy<Value = BatchSpec> {
    (
        1usize..5,
        any::<bool>(),
        0usize..14,
        0usize..20,
        0usize..6,
        prop_oneof![
            Just(pagedattn::problem::default_sm_scale()),
            Just(0.0f32),
            -0.5f32..0.5
        ],
    )
        .prop_map(
            |(max_batch, exact_batch, max_q_len, max_extra_kv, max_spare_pages, sm_scale)| {
                BatchSpec {
                    max_batch,
                    exact_batch,
                    max_q_len,
                    max_extra_kv,
                    max_spare_pages,
                    sm_scale,
                }
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn cpu_matches_naive_on_random_batches(seed in any::<u64>(), spec in spec()) {
        let w = random_batch(seed, &spec);
        let inp = w.inputs(seed);
        let p = inp.problem();
        let got = cpu::attention(&p).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let want = naive(&p);
        let rep = compare(&got, &want);
        prop_assert!(rep.ok(), "{}: {:?}", w.name, rep);
        for (row, (g, r)) in got.lse.iter().zip(&want.lse).enumerate() {
            if *r == f32::NEG_INFINITY {
                prop_assert_eq!(*g, f32::NEG_INFINITY);
                prop_assert!(got.out[row * D..(row + 1) * D].iter().all(|x| x.to_bits() == 0));
            }
        }
    }
}
