//! One test per way a call can be refused on the host: each asserts the exact
//! `Error` variant and the names it reports, through `problem::validate`, the
//! CPU backend's `attention` and `attention_into`, and `naive_attention`
//! (which must all agree, and none of which may panic).

use pagedattn::backend::cpu;
use pagedattn::half::bf16;
use pagedattn::problem::{validate, Dims, MAX_BUFFER_BYTES};
use pagedattn::Error;

/// An owned call.
type Call = pagedattn::OwnedProblem;

/// A valid call: 2 sequences (q_len 2 and 3, kv_len 3 and 2), 4 pages, one
/// page repeated.
fn valid() -> Call {
    let dims = Dims::new(5, 4, 2, 5);
    let val = |i: usize| bf16::from_f32(((i % 7) as f32 - 3.0) / 4.0);
    Call {
        dims,
        q: (0..dims.q_elems()).map(val).collect(),
        k_cache: (0..dims.kv_elems()).map(|i| val(i + 1)).collect(),
        v_cache: (0..dims.kv_elems()).map(|i| val(i + 2)).collect(),
        qo_indptr: vec![0, 2, 5],
        kv_indptr: vec![0, 3, 5],
        kv_indices: vec![0, 1, 2, 3, 1],
        sm_scale: 0.088,
    }
}

trait Refused {
    fn error(&self) -> Error;
}

impl Refused for Call {
    /// The error every entry point gives; asserts they agree.
    fn error(&self) -> Error {
        let p = self.problem();
        let e = validate(&p).expect_err("validate accepted an invalid call");
        let same = |other: Error, by: &str| {
            // Compare by Debug so NaN payloads (NonFiniteScale) compare equal.
            assert_eq!(
                format!("{other:?}"),
                format!("{e:?}"),
                "{by} disagrees with validate"
            );
        };
        same(
            cpu::attention(&p).expect_err("attention accepted"),
            "attention",
        );
        let mut out = vec![bf16::ZERO; self.dims.q_elems().min(1 << 20)];
        let mut lse = vec![0f32; self.dims.lse_elems().min(1 << 20)];
        same(
            cpu::attention_into(&p, &mut out, &mut lse).expect_err("attention_into accepted"),
            "attention_into",
        );
        same(
            cpu::naive_attention(&p).expect_err("naive_attention accepted"),
            "naive_attention",
        );
        // The message names the problem (and is not empty).
        assert!(!e.to_string().is_empty());
        e
    }
}

#[test]
fn valid_call_is_accepted() {
    let c = valid();
    validate(&c.problem()).unwrap();
    let o = cpu::attention(&c.problem()).unwrap();
    assert_eq!(o.out.len(), 5 * 24 * 128);
    // Sequence 1 has q_len 3, kv_len 2: its first token sees no key.
    assert_eq!(o.lse[2 * 24], f32::NEG_INFINITY);
    assert!(o.lse[4 * 24].is_finite());
}

// ---- geometry -------------------------------------------------------------

fn geometry(set: impl Fn(&mut Dims), what: &'static str, expected: usize, got: usize) {
    let mut c = valid();
    set(&mut c.dims);
    assert_eq!(
        c.error(),
        Error::UnsupportedGeometry {
            what,
            expected,
            got
        }
    );
}

#[test]
fn wrong_num_qo_heads() {
    geometry(|d| d.num_qo_heads = 32, "num_qo_heads", 24, 32);
}

#[test]
fn wrong_num_kv_heads() {
    geometry(|d| d.num_kv_heads = 8, "num_kv_heads", 4, 8);
}

#[test]
fn wrong_head_dim() {
    geometry(|d| d.head_dim = 64, "head_dim", 128, 64);
}

#[test]
fn wrong_page_size() {
    geometry(|d| d.page_size = 16, "page_size", 1, 16);
}

#[test]
fn counts_beyond_int32_are_too_large() {
    let big = i32::MAX as usize + 1;
    for what in ["total_q", "num_pages", "batch", "num_kv_indices"] {
        let mut c = valid();
        match what {
            "total_q" => c.dims.total_q = big,
            "num_pages" => c.dims.num_pages = big,
            "batch" => c.dims.batch = big,
            _ => c.dims.num_kv_indices = big,
        }
        assert_eq!(
            c.error(),
            Error::TooLarge {
                what,
                value: big as u128,
                limit: i32::MAX as u128
            }
        );
    }
}

/// The kernel numbers packed rows (token x query head of a group) in int32.
#[test]
fn packed_rows_beyond_int32_are_too_large() {
    let mut c = valid();
    c.dims.total_q = i32::MAX as usize / 6 + 1;
    assert_eq!(
        c.error(),
        Error::TooLarge {
            what: "packed query rows (total_q * 6)",
            value: (i32::MAX as u128 / 6 + 1) * 6,
            limit: i32::MAX as u128
        }
    );
}

/// Sizes whose buffers no machine can hold are refused before anything is
/// allocated (a workload with 2e9 pages once aborted the process).
#[test]
fn buffers_beyond_the_byte_limit_are_too_large() {
    let mut c = valid();
    c.dims.num_pages = 2_000_000_000;
    assert_eq!(
        c.error(),
        Error::TooLarge {
            what: "k_cache bytes",
            value: 2_000_000_000u128 * 512 * 2,
            limit: MAX_BUFFER_BYTES as u128
        }
    );
    // Just under the limit passes the size checks (and then fails on the
    // buffer lengths, which is the next check).
    let mut c = valid();
    c.dims.num_pages = (MAX_BUFFER_BYTES / 1024) as usize;
    assert!(matches!(
        c.error(),
        Error::BufferLength {
            name: "k_cache",
            ..
        }
    ));
    let mut c = valid();
    c.dims.total_q = 300_000_000; // 1.8 TB of q
    assert!(matches!(
        c.error(),
        Error::TooLarge {
            what: "q bytes",
            ..
        }
    ));
}

// ---- buffer lengths -------------------------------------------------------

fn length(edit: impl Fn(&mut Call, isize), name: &'static str, expected: usize) {
    for delta in [-1isize, 1] {
        let mut c = valid();
        edit(&mut c, delta);
        let got = (expected as isize + delta) as usize;
        assert_eq!(
            c.error(),
            Error::BufferLength {
                name,
                expected,
                got
            },
            "delta {delta}"
        );
    }
}

fn resize<T: Clone + Default>(v: &mut Vec<T>, delta: isize) {
    let n = (v.len() as isize + delta) as usize;
    v.resize(n, T::default());
}

#[test]
fn q_wrong_length() {
    length(|c, d| resize(&mut c.q, d), "q", 5 * 24 * 128);
}

#[test]
fn k_cache_wrong_length() {
    length(|c, d| resize(&mut c.k_cache, d), "k_cache", 4 * 4 * 128);
}

#[test]
fn v_cache_wrong_length() {
    length(|c, d| resize(&mut c.v_cache, d), "v_cache", 4 * 4 * 128);
}

#[test]
fn kv_indices_wrong_length() {
    length(|c, d| resize(&mut c.kv_indices, d), "kv_indices", 5);
}

/// Both indptrs one entry longer than `batch + 1` (so they agree with each other).
#[test]
fn indptrs_wrong_length_for_batch() {
    let mut c = valid();
    c.qo_indptr.push(5);
    c.kv_indptr.push(5);
    assert_eq!(
        c.error(),
        Error::BufferLength {
            name: "qo_indptr",
            expected: 3,
            got: 4
        }
    );
}

#[test]
fn output_buffers_wrong_length() {
    let c = valid();
    let p = c.problem();
    let (nq, nl) = (p.dims.q_elems(), p.dims.lse_elems());
    for delta in [-1isize, 1] {
        let mut out = vec![bf16::ZERO; (nq as isize + delta) as usize];
        let mut lse = vec![0f32; nl];
        let got = (nq as isize + delta) as usize;
        assert_eq!(
            cpu::attention_into(&p, &mut out, &mut lse),
            Err(Error::BufferLength {
                name: "output",
                expected: nq,
                got
            })
        );
        let mut out = vec![bf16::ZERO; nq];
        let mut lse = vec![0f32; (nl as isize + delta) as usize];
        let got = (nl as isize + delta) as usize;
        assert_eq!(
            cpu::attention_into(&p, &mut out, &mut lse),
            Err(Error::BufferLength {
                name: "lse",
                expected: nl,
                got
            })
        );
    }
}

// ---- indptrs --------------------------------------------------------------

#[test]
fn qo_indptr_empty() {
    let mut c = valid();
    c.qo_indptr.clear();
    assert_eq!(c.error(), Error::IndptrEmpty { name: "qo_indptr" });
}

#[test]
fn kv_indptr_empty() {
    let mut c = valid();
    c.kv_indptr.clear();
    assert_eq!(c.error(), Error::IndptrEmpty { name: "kv_indptr" });
}

#[test]
fn indptrs_of_different_lengths() {
    let mut c = valid();
    c.kv_indptr = vec![0, 5];
    assert_eq!(
        c.error(),
        Error::IndptrLengthMismatch {
            qo_len: 3,
            kv_len: 2
        }
    );
}

#[test]
fn qo_indptr_first_not_zero() {
    let mut c = valid();
    c.qo_indptr = vec![1, 2, 5];
    assert_eq!(
        c.error(),
        Error::IndptrFirstNotZero {
            name: "qo_indptr",
            got: 1
        }
    );
    c.qo_indptr = vec![-1, 2, 5];
    assert_eq!(
        c.error(),
        Error::IndptrFirstNotZero {
            name: "qo_indptr",
            got: -1
        }
    );
}

#[test]
fn kv_indptr_first_not_zero() {
    let mut c = valid();
    c.kv_indptr = vec![2, 3, 5];
    assert_eq!(
        c.error(),
        Error::IndptrFirstNotZero {
            name: "kv_indptr",
            got: 2
        }
    );
}

#[test]
fn qo_indptr_decreasing() {
    let mut c = valid();
    c.qo_indptr = vec![0, 3, 2];
    c.dims.total_q = 2;
    c.q.truncate(2 * 24 * 128);
    assert_eq!(
        c.error(),
        Error::IndptrDecreasing {
            name: "qo_indptr",
            index: 2,
            prev: 3,
            next: 2
        }
    );
}

#[test]
fn kv_indptr_decreasing() {
    let mut c = valid();
    c.kv_indptr = vec![0, 6, 5];
    assert_eq!(
        c.error(),
        Error::IndptrDecreasing {
            name: "kv_indptr",
            index: 2,
            prev: 6,
            next: 5
        }
    );
}

#[test]
fn qo_indptr_last_not_total_q() {
    let mut c = valid();
    c.qo_indptr = vec![0, 2, 4];
    assert_eq!(
        c.error(),
        Error::IndptrLast {
            name: "qo_indptr",
            what: "total_q",
            expected: 5,
            got: 4
        }
    );
    c.qo_indptr = vec![0, 2, 6]; // past the end
    assert_eq!(
        c.error(),
        Error::IndptrLast {
            name: "qo_indptr",
            what: "total_q",
            expected: 5,
            got: 6
        }
    );
}

#[test]
fn kv_indptr_last_not_num_kv_indices() {
    let mut c = valid();
    c.kv_indptr = vec![0, 3, 7]; // past the end of kv_indices
    assert_eq!(
        c.error(),
        Error::IndptrLast {
            name: "kv_indptr",
            what: "num_kv_indices",
            expected: 5,
            got: 7
        }
    );
}

#[test]
fn negative_indptr_entries() {
    let mut c = valid();
    c.qo_indptr = vec![0, -1, 5];
    assert_eq!(
        c.error(),
        Error::NegativeEntry {
            name: "qo_indptr",
            index: 1,
            value: -1
        }
    );
    let mut c = valid();
    c.kv_indptr = vec![0, 3, i32::MIN];
    assert_eq!(
        c.error(),
        Error::NegativeEntry {
            name: "kv_indptr",
            index: 2,
            value: i32::MIN as i64
        }
    );
}

// ---- page ids -------------------------------------------------------------

#[test]
fn page_id_negative() {
    let mut c = valid();
    c.kv_indices[3] = -1;
    assert_eq!(
        c.error(),
        Error::PageOutOfRange {
            index: 3,
            page: -1,
            num_pages: 4
        }
    );
}

#[test]
fn page_id_past_pool() {
    let mut c = valid();
    c.kv_indices[4] = 4;
    assert_eq!(
        c.error(),
        Error::PageOutOfRange {
            index: 4,
            page: 4,
            num_pages: 4
        }
    );
    c.kv_indices[4] = i32::MAX;
    assert_eq!(
        c.error(),
        Error::PageOutOfRange {
            index: 4,
            page: i32::MAX as i64,
            num_pages: 4
        }
    );
}

/// A page id in a sequence with no queries is still checked (it is in the array).
#[test]
fn page_id_checked_even_if_unread() {
    let mut c = valid();
    c.qo_indptr = vec![0, 0, 5]; // sequence 0 has no queries
    c.kv_indices[0] = 9;
    assert_eq!(
        c.error(),
        Error::PageOutOfRange {
            index: 0,
            page: 9,
            num_pages: 4
        }
    );
}

/// The first bad page id is the one named, wherever it falls among the
/// blocks the check tests at once, for pools of any size (none, one page,
/// past i32::MAX).
#[test]
fn page_id_first_bad_named_in_long_arrays() {
    use pagedattn::problem::check_page_ids;
    let naive = |num_pages: usize, ids: &[i32]| {
        ids.iter()
            .position(|&p| p < 0 || p as i64 >= num_pages as i64)
            .map(|i| (i, ids[i] as i64))
    };
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for num_pages in [0usize, 1, 7, 5000, 1 << 31, usize::MAX / 2] {
        for len in [0usize, 1, 1023, 1024, 1025, 5000] {
            let span = num_pages.clamp(1, 1 << 30) as u64;
            let mut ids: Vec<i32> = (0..len).map(|_| (next() % span) as i32).collect();
            // Bad ids at random places (some runs have none, some several).
            for _ in 0..next() % 3 {
                if len > 0 {
                    let at = (next() % len as u64) as usize;
                    ids[at] = match next() % 3 {
                        0 => -1 - (next() % 1000) as i32,
                        1 => num_pages.min(i32::MAX as usize) as i32,
                        _ => i32::MIN,
                    };
                }
            }
            let dims = Dims::new(1, num_pages, 1, len);
            let got = check_page_ids(&dims, &ids).err().map(|e| match e {
                Error::PageOutOfRange { index, page, .. } => (index, page),
                other => panic!("unexpected error {other:?}"),
            });
            assert_eq!(
                got,
                naive(num_pages, &ids),
                "num_pages {num_pages}, {len} ids"
            );
        }
    }
}

// ---- sm_scale -------------------------------------------------------------

#[test]
fn sm_scale_non_finite() {
    for s in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        let mut c = valid();
        c.sm_scale = s;
        match c.error() {
            Error::NonFiniteScale(x) => assert_eq!(x.to_bits(), s.to_bits()),
            e => panic!("sm_scale {s}: {e:?}"),
        }
    }
}

#[test]
fn sm_scale_zero_and_negative_are_valid() {
    for s in [0.0f32, -0.0, -1.0, f32::MIN_POSITIVE, -f32::MAX] {
        let mut c = valid();
        c.sm_scale = s;
        cpu::attention(&c.problem()).unwrap_or_else(|e| panic!("sm_scale {s}: {e}"));
    }
}

// ---- valid corner cases -----------------------------------------------------

#[test]
fn empty_batch_is_valid() {
    let c = Call {
        dims: Dims::new(0, 0, 0, 0),
        q: vec![],
        k_cache: vec![],
        v_cache: vec![],
        qo_indptr: vec![0],
        kv_indptr: vec![0],
        kv_indices: vec![],
        sm_scale: 1.0,
    };
    let o = cpu::attention(&c.problem()).unwrap();
    assert!(o.out.is_empty() && o.lse.is_empty());
}

#[test]
fn no_queries_is_valid() {
    let mut c = valid();
    c.qo_indptr = vec![0, 0, 0];
    c.dims.total_q = 0;
    c.q.clear();
    let o = cpu::attention(&c.problem()).unwrap();
    assert!(o.out.is_empty() && o.lse.is_empty());
}

/// The first failing check wins, in a documented order: geometry, sizes,
/// sm_scale, buffer lengths, indptrs, page ids.
#[test]
fn first_error_wins() {
    let mut c = valid();
    c.dims.head_dim = 1;
    c.sm_scale = f32::NAN;
    c.q.clear();
    c.kv_indices[0] = -5;
    assert!(matches!(
        c.error(),
        Error::UnsupportedGeometry {
            what: "head_dim",
            ..
        }
    ));
    c.dims.head_dim = 128;
    assert!(matches!(c.error(), Error::NonFiniteScale(_)));
    c.sm_scale = 1.0;
    assert!(matches!(c.error(), Error::BufferLength { name: "q", .. }));
}
