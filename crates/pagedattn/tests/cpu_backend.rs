//! The CPU backend against a deliberately naive fp64 implementation written
//! here (one row, one head, one key at a time; nothing shared with
//! `src/backend/cpu.rs`), plus small cases worked out by hand.
//!
//! Inputs are drawn with a fresh seed on every run (printed; set
//! `PAGEDATTN_TEST_SEED` to replay a failure).

use pagedattn::backend::cpu;
use pagedattn::check::compare;
use pagedattn::half::bf16;
use pagedattn::problem::{default_sm_scale, Dims, HostProblem, Output};
use pagedattn_cli::generate::{edge_cases, random_batch, BatchSpec};
use pagedattn_cli::workload::{Inputs, Workload};
use std::f64::consts::LN_2;

const H: usize = 24;
const KVH: usize = 4;
const D: usize = 128;

/// A fresh seed per run, or `PAGEDATTN_TEST_SEED`; printed so a failure can be replayed.
fn seed() -> u64 {
    let s = std::env::var("PAGEDATTN_TEST_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(1)
        });
    println!("PAGEDATTN_TEST_SEED={s}");
    s
}

/// The naive reference: its output before rounding (fp64), rounded to bf16,
/// and lse. Written straight from SPEC.md.
struct Naive {
    out64: Vec<f64>,
    out: Output,
    /// Whether each (token, head) row sees at least one key.
    sees: Vec<bool>,
}

fn naive(p: &HostProblem<'_>) -> Naive {
    let total_q = p.dims.total_q;
    let mut out64 = vec![0f64; total_q * H * D];
    let mut lse = vec![f32::NEG_INFINITY; total_q * H];
    let mut sees = vec![false; total_q * H];
    let batch = p.qo_indptr.len() - 1;
    for b in 0..batch {
        let q0 = p.qo_indptr[b] as i64;
        let q_len = p.qo_indptr[b + 1] as i64 - q0;
        let k0 = p.kv_indptr[b] as i64;
        let kv_len = p.kv_indptr[b + 1] as i64 - k0;
        for i in 0..q_len {
            let t = (q0 + i) as usize;
            for h in 0..H {
                let g = h / 6;
                let mut scores = Vec::new();
                let mut pages = Vec::new();
                for j in 0..kv_len {
                    if j > i + kv_len - q_len {
                        continue;
                    }
                    let page = p.kv_indices[(k0 + j) as usize] as usize;
                    let mut dot = 0f64;
                    for d in 0..D {
                        dot += p.q[(t * H + h) * D + d].to_f64()
                            * p.k_cache[(page * KVH + g) * D + d].to_f64();
                    }
                    scores.push(p.sm_scale as f64 * dot);
                    pages.push(page);
                }
                if scores.is_empty() {
                    continue;
                }
                sees[t * H + h] = true;
                let m = scores.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
                let sum: f64 = scores.iter().map(|s| (s - m).exp()).sum();
                lse[t * H + h] = ((m + sum.ln()) / LN_2) as f32;
                for (s, &page) in scores.iter().zip(&pages) {
                    let w = (s - m).exp() / sum;
                    for d in 0..D {
                        out64[(t * H + h) * D + d] +=
                            w * p.v_cache[(page * KVH + g) * D + d].to_f64();
                    }
                }
            }
        }
    }
    let out = out64.iter().map(|&x| bf16::from_f64(x)).collect();
    Naive {
        out64,
        out: Output { out, lse },
        sees,
    }
}

/// Checks `got` against the naive reference: the SPEC.md bound, exact `-inf`
/// and zero rows where no key is seen, and a tighter bound this backend meets
/// (one bf16 rounding of an fp32 accumulation).
fn check_against_naive(what: &str, p: &HostProblem<'_>, got: &Output) {
    let r = naive(p);
    let rep = compare(got, &r.out);
    assert!(rep.ok(), "{what}: {rep:?}");
    for (row, &sees) in r.sees.iter().enumerate() {
        let o = &got.out[row * D..(row + 1) * D];
        if sees {
            assert!(
                got.lse[row].is_finite(),
                "{what}: row {row} lse {}",
                got.lse[row]
            );
            let want = r.out.lse[row] as f64;
            let d = (got.lse[row] as f64 - want).abs();
            assert!(
                d <= 1e-4 * (1.0 + want.abs()),
                "{what}: row {row} lse {} vs {want}",
                got.lse[row]
            );
            for (e, (g, w)) in o.iter().zip(&r.out64[row * D..(row + 1) * D]).enumerate() {
                let d = (g.to_f64() - w).abs();
                assert!(
                    d <= w.abs() / 256.0 + 1e-4,
                    "{what}: row {row} elem {e}: {g} vs unrounded {w}"
                );
            }
        } else {
            assert_eq!(
                got.lse[row],
                f32::NEG_INFINITY,
                "{what}: row {row} sees no key"
            );
            assert!(
                o.iter().all(|x| x.to_bits() == 0),
                "{what}: row {row} sees no key but is not +0"
            );
        }
    }
}

fn run_workload(w: &Workload, seed: u64) -> (Inputs, Output) {
    let inp = w.inputs(seed);
    let out = cpu::attention(&inp.problem()).unwrap_or_else(|e| panic!("{}: {e}", w.name));
    (inp, out)
}

#[test]
fn edge_cases_match_naive() {
    let seed = seed();
    let cases = edge_cases();
    assert!(cases.len() >= 10);
    for w in &cases {
        w.validate().unwrap_or_else(|e| panic!("{}: {e}", w.name));
        let (inp, out) = run_workload(w, seed);
        assert_eq!(out.out.len(), w.total_q * H * D);
        assert_eq!(out.lse.len(), w.total_q * H);
        check_against_naive(&w.name, &inp.problem(), &out);
    }
}

#[test]
fn random_batches_match_naive() {
    let seed = seed();
    let specs = [
        BatchSpec::default(),
        BatchSpec {
            max_batch: 12,
            max_q_len: 9,
            max_extra_kv: 70,
            ..BatchSpec::default()
        },
        BatchSpec {
            max_batch: 2,
            exact_batch: true,
            max_q_len: 60,
            max_extra_kv: 140,
            ..BatchSpec::default()
        },
        BatchSpec {
            sm_scale: -0.3,
            ..BatchSpec::default()
        },
        BatchSpec {
            sm_scale: 0.0,
            ..BatchSpec::default()
        },
    ];
    let mut rows_without_keys = 0;
    for i in 0..30u64 {
        let spec = &specs[i as usize % specs.len()];
        let w = random_batch(seed.wrapping_add(i), spec);
        let (inp, out) = run_workload(&w, seed);
        check_against_naive(&format!("{} {spec:?}", w.name), &inp.problem(), &out);
        rows_without_keys += out.lse.iter().filter(|x| **x == f32::NEG_INFINITY).count();
    }
    assert!(
        rows_without_keys > 0,
        "the random batches never produced a row without keys"
    );
}

/// The library's `naive_attention` (what `pagedattn check --backend cpu`
/// compares with) meets the same naive reference, and agrees with the fast
/// backend within the SPEC.md bound.
#[test]
fn library_naive_matches_naive() {
    let seed = seed();
    let mut cases = edge_cases();
    cases
        .extend((0..6u64).map(|i| random_batch(seed.wrapping_add(100 + i), &BatchSpec::default())));
    for w in &cases {
        let (inp, fast) = run_workload(w, seed);
        let lib = cpu::naive_attention(&inp.problem()).unwrap();
        let r = naive(&inp.problem());
        assert!(
            compare(&lib, &r.out).ok(),
            "{}: library naive vs test naive",
            w.name
        );
        assert!(
            compare(&fast, &lib).ok(),
            "{}: fast vs library naive",
            w.name
        );
    }
}

/// The generator's batches reach every corner it promises.
#[test]
fn random_batches_cover_corners() {
    let (mut q0, mut kv0, mut longer, mut shorter, mut shared, mut spare) = (0, 0, 0, 0, 0, 0);
    for s in 0..200 {
        let w = random_batch(s, &BatchSpec::default());
        w.validate().unwrap();
        let seqs = pagedattn::problem::sequences(&w.qo_indptr, &w.kv_indptr);
        q0 += seqs.iter().filter(|s| s.q_len == 0).count();
        kv0 += seqs.iter().filter(|s| s.kv_len == 0 && s.q_len > 0).count();
        longer += seqs.iter().filter(|s| s.kv_len > s.q_len).count();
        shorter += seqs
            .iter()
            .filter(|s| s.kv_len < s.q_len && s.kv_len > 0)
            .count();
        let mut ids = w.kv_indices.clone();
        ids.sort();
        ids.dedup();
        shared += (ids.len() < w.kv_indices.len()) as usize;
        spare += (ids.len() < w.num_pages) as usize;
        assert_eq!(
            w,
            random_batch(s, &BatchSpec::default()),
            "not deterministic"
        );
    }
    for (what, n) in [
        ("q_len 0", q0),
        ("kv_len 0", kv0),
        ("kv > q", longer),
        ("kv < q", shorter),
    ] {
        assert!(n > 0, "{what} never drawn");
    }
    assert!(shared > 0 && spare > 0, "shared {shared} spare {spare}");
}

/// A single-sequence problem with hand-written rows. `q_rows[t]` is used for
/// all 24 heads of token t; `kv_rows[p]` = (k, v) for all 4 kv heads of page p.
struct Hand(Inputs);

impl Hand {
    fn new(
        q_rows: &[Vec<f32>],
        kv_rows: &[(Vec<f32>, Vec<f32>)],
        pages: &[i32],
        scale: f32,
    ) -> Hand {
        let bf = |r: &Vec<f32>, n: usize| -> Vec<bf16> {
            (0..n)
                .flat_map(|_| r.iter().map(|&x| bf16::from_f32(x)))
                .collect()
        };
        Hand(Inputs {
            q: q_rows.iter().flat_map(|r| bf(r, H)).collect(),
            k_cache: kv_rows.iter().flat_map(|(k, _)| bf(k, KVH)).collect(),
            v_cache: kv_rows.iter().flat_map(|(_, v)| bf(v, KVH)).collect(),
            qo_indptr: vec![0, q_rows.len() as i32],
            kv_indptr: vec![0, pages.len() as i32],
            kv_indices: pages.to_vec(),
            dims: Dims::new(q_rows.len(), kv_rows.len(), 1, pages.len()),
            sm_scale: scale,
        })
    }
    fn run(&self) -> Output {
        cpu::attention(&self.0.problem()).unwrap()
    }
}

/// A row of bf16-representable values (multiples of 1/8 in [-4, 4)).
fn row(seed: u64) -> Vec<f32> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..D)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            ((x % 64) as f32 - 32.0) / 8.0
        })
        .collect()
}

fn dot(a: &[f32], b: &[f32]) -> f64 {
    a.iter().zip(b).map(|(x, y)| *x as f64 * *y as f64).sum()
}

#[test]
fn one_key_output_is_its_value() {
    let s = seed();
    let (q, k, v) = (row(s), row(s + 1), row(s + 2));
    let hand = Hand::new(
        std::slice::from_ref(&q),
        &[(k.clone(), v.clone())],
        &[0],
        default_sm_scale(),
    );
    let out = hand.run();
    let want_lse = default_sm_scale() as f64 * dot(&q, &k) / LN_2;
    for h in 0..H {
        let o: Vec<f32> = out.out[h * D..(h + 1) * D]
            .iter()
            .map(|x| x.to_f32())
            .collect();
        assert_eq!(o, v, "head {h}");
        assert!(
            (out.lse[h] as f64 - want_lse).abs() <= 1e-5 * (1.0 + want_lse.abs()),
            "{} vs {want_lse}",
            out.lse[h]
        );
    }
}

#[test]
fn two_equal_keys_add_one_to_lse() {
    let s = seed();
    let (q, k, v1, v2) = (row(s), row(s + 1), row(s + 2), row(s + 3));
    let hand = Hand::new(
        std::slice::from_ref(&q),
        &[(k.clone(), v1.clone()), (k.clone(), v2.clone())],
        &[1, 0],
        default_sm_scale(),
    );
    let out = hand.run();
    let want_lse = default_sm_scale() as f64 * dot(&q, &k) / LN_2 + 1.0;
    for h in 0..H {
        assert!((out.lse[h] as f64 - want_lse).abs() <= 1e-5 * (1.0 + want_lse.abs()));
        for d in 0..D {
            // The mean of two multiples of 1/8 in [-4, 4) is exact in bf16.
            assert_eq!(
                out.out[h * D + d].to_f32(),
                (v1[d] + v2[d]) / 2.0,
                "head {h} elem {d}"
            );
        }
    }
}

#[test]
fn zero_scale_is_uniform_average() {
    let s = seed();
    // q_len 4, kv_len 6: token i sees i + 3 keys.
    let q: Vec<Vec<f32>> = (0..4).map(|i| row(s + i)).collect();
    let kv: Vec<(Vec<f32>, Vec<f32>)> =
        (0..6).map(|i| (row(s + 10 + i), row(s + 20 + i))).collect();
    let hand = Hand::new(&q, &kv, &[0, 1, 2, 3, 4, 5], 0.0);
    let out = hand.run();
    for i in 0..4 {
        let n = i + 3;
        for h in 0..H {
            let r = i * H + h;
            assert!(
                (out.lse[r] as f64 - (n as f64).log2()).abs() < 1e-6,
                "lse {} n {n}",
                out.lse[r]
            );
            for d in 0..D {
                let mean = (0..n).map(|j| kv[j].1[d] as f64).sum::<f64>() / n as f64;
                assert_eq!(
                    out.out[r * D + d],
                    bf16::from_f64(mean),
                    "token {i} head {h} elem {d}"
                );
            }
        }
    }
}

#[test]
fn negative_scale_matches_naive() {
    let seed = seed();
    for s in [-1.0f32, -default_sm_scale(), -1e-3] {
        let w = Workload {
            sm_scale: s,
            ..edge_cases()
                .into_iter()
                .find(|w| w.name == "mixed-relations")
                .unwrap()
        };
        let (inp, out) = run_workload(&w, seed);
        check_against_naive(&format!("sm_scale {s}"), &inp.problem(), &out);
    }
}

#[test]
fn huge_logits_give_finite_lse() {
    // q = k1 = 8 everywhere: dot 8192; k2 = 7: dot 7168. Scaled logits ~1e4
    // would overflow exp() without the max subtraction.
    let q = vec![8.0f32; D];
    let (k1, k2) = (vec![8.0f32; D], vec![7.0f32; D]);
    let (v1, v2) = (row(1), row(2));
    for scale in [1.0f32, 1.2, -1.2] {
        let hand = Hand::new(
            std::slice::from_ref(&q),
            &[(k1.clone(), v1.clone()), (k2.clone(), v2.clone())],
            &[0, 1],
            scale,
        );
        let out = hand.run();
        let (s1, s2) = (scale as f64 * 8192.0, scale as f64 * 7168.0);
        let m = s1.max(s2);
        let want = (m + ((s1 - m).exp() + (s2 - m).exp()).ln()) / LN_2;
        let winner = if s1 > s2 { &v1 } else { &v2 };
        for h in 0..H {
            assert!(out.lse[h].is_finite(), "scale {scale}: lse {}", out.lse[h]);
            assert!(
                (out.lse[h] as f64 - want).abs() <= 1e-6 * want.abs(),
                "{} vs {want}",
                out.lse[h]
            );
            let o: Vec<f32> = out.out[h * D..(h + 1) * D]
                .iter()
                .map(|x| x.to_f32())
                .collect();
            assert_eq!(
                &o, winner,
                "scale {scale}: the other key's weight is exp(-1000+)"
            );
        }
    }
}

/// Repeated page ids read the same page: the answer equals that of a cache in
/// which every repetition is a separate copy of the page.
#[test]
fn repeated_pages_equal_copied_pages() {
    let seed = seed();
    let w = edge_cases()
        .into_iter()
        .find(|w| w.name == "repeated-pages")
        .unwrap();
    let inp = w.inputs(seed);
    let shared = cpu::attention(&inp.problem()).unwrap();

    // One fresh page per kv_indices entry, holding a copy.
    let row = KVH * D;
    let mut copy = inp.clone();
    copy.k_cache = inp
        .kv_indices
        .iter()
        .flat_map(|&p| inp.k_cache[p as usize * row..][..row].to_vec())
        .collect();
    copy.v_cache = inp
        .kv_indices
        .iter()
        .flat_map(|&p| inp.v_cache[p as usize * row..][..row].to_vec())
        .collect();
    copy.kv_indices = (0..inp.kv_indices.len() as i32).collect();
    copy.dims.num_pages = inp.kv_indices.len();
    let copied = cpu::attention(&copy.problem()).unwrap();
    assert_eq!(bits(&shared), bits(&copied));
}

fn bits(o: &Output) -> (Vec<u16>, Vec<u32>) {
    (
        o.out.iter().map(|x| x.to_bits()).collect(),
        o.lse.iter().map(|x| x.to_bits()).collect(),
    )
}

#[test]
fn deterministic_bitwise() {
    let seed = seed();
    let spec = BatchSpec {
        max_batch: 8,
        max_q_len: 50,
        max_extra_kv: 100,
        ..BatchSpec::default()
    };
    for i in 0..3 {
        let w = random_batch(seed.wrapping_add(i), &spec);
        let inp = w.inputs(seed);
        let a = cpu::attention(&inp.problem()).unwrap();
        let b = cpu::attention(&inp.problem()).unwrap();
        assert_eq!(bits(&a), bits(&b), "{}", w.name);
    }
}

#[test]
fn attention_into_overwrites_every_element() {
    let seed = seed();
    for w in edge_cases() {
        let inp = w.inputs(seed);
        let p = inp.problem();
        let want = cpu::attention(&p).unwrap();
        let mut out = vec![bf16::NAN; p.dims.q_elems()];
        let mut lse = vec![f32::NAN; p.dims.lse_elems()];
        cpu::attention_into(&p, &mut out, &mut lse).unwrap();
        assert_eq!(bits(&want), bits(&Output { out, lse }), "{}", w.name);
    }
}

/// Non-finite inputs flow through IEEE arithmetic; keys a row does not see
/// never affect it (docs/INPUTS.md).
#[test]
fn non_finite_inputs_propagate_only_to_rows_that_see_them() {
    let s = seed();
    // q_len 3 == kv_len 3: token i sees keys 0..=i. Key 2 (seen by token 2 only)
    // gets a NaN in k; key 1's v gets +inf in element 5.
    let q: Vec<Vec<f32>> = (0..3).map(|i| row(s + i)).collect();
    let mut kv: Vec<(Vec<f32>, Vec<f32>)> =
        (0..3).map(|i| (row(s + 10 + i), row(s + 20 + i))).collect();
    kv[2].0[7] = f32::NAN;
    kv[1].1[5] = f32::INFINITY;
    let out = Hand::new(&q, &kv, &[0, 1, 2], default_sm_scale()).run();
    for h in 0..H {
        // token 0: sees neither.
        assert!(out.lse[h].is_finite());
        assert!(out.out[h * D..(h + 1) * D]
            .iter()
            .all(|x| x.to_f32().is_finite()));
        // token 1: lse finite (v does not enter it); element 5 +inf, others finite.
        let r = H + h;
        assert!(out.lse[r].is_finite());
        for d in 0..D {
            let x = out.out[r * D + d].to_f32();
            if d == 5 {
                assert_eq!(x, f32::INFINITY);
            } else {
                assert!(x.is_finite());
            }
        }
        // token 2: a NaN score: lse and the whole row NaN.
        let r = 2 * H + h;
        assert!(out.lse[r].is_nan());
        assert!(out.out[r * D..(r + 1) * D].iter().all(|x| x.is_nan()));
    }
}
