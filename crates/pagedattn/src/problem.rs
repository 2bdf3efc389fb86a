//! The operation's fixed geometry, the shapes of one call, and validation.
//!
//! Every backend calls [`validate`] (or the parts of it that apply to where its
//! data lives) before it touches a buffer.

use crate::error::{Error, Result};
use half::bf16;

/// Query heads.
pub const NUM_QO_HEADS: usize = 24;
/// Key/value heads.
pub const NUM_KV_HEADS: usize = 4;
/// Query heads per kv head (query head `h` reads kv head `h / GROUP_SIZE`).
pub const GROUP_SIZE: usize = NUM_QO_HEADS / NUM_KV_HEADS;
/// Elements per head.
pub const HEAD_DIM: usize = 128;
/// Tokens per KV-cache page.
pub const PAGE_SIZE: usize = 1;

/// `1/sqrt(head_dim)`, the default softmax scale.
pub fn default_sm_scale() -> f32 {
    1.0 / (HEAD_DIM as f32).sqrt()
}

/// The sizes of one call, as the caller declares them.
///
/// The head counts, head_dim and page size are part of the declaration so that
/// a caller built for another model is refused with a clear error instead of
/// reading its buffers with the wrong strides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dims {
    pub total_q: usize,
    pub num_pages: usize,
    pub batch: usize,
    pub num_kv_indices: usize,
    pub num_qo_heads: usize,
    pub num_kv_heads: usize,
    pub head_dim: usize,
    pub page_size: usize,
}

impl Dims {
    /// Dims with this operation's heads, head_dim and page size.
    pub fn new(total_q: usize, num_pages: usize, batch: usize, num_kv_indices: usize) -> Self {
        Dims {
            total_q,
            num_pages,
            batch,
            num_kv_indices,
            num_qo_heads: NUM_QO_HEADS,
            num_kv_heads: NUM_KV_HEADS,
            head_dim: HEAD_DIM,
            page_size: PAGE_SIZE,
        }
    }
    /// Elements of `q` and of `output`: `[total_q, 24, 128]`.
    pub fn q_elems(&self) -> usize {
        self.total_q * self.num_qo_heads * self.head_dim
    }
    /// Elements of `k_cache` and of `v_cache`: `[num_pages, 1, 4, 128]`.
    pub fn kv_elems(&self) -> usize {
        self.num_pages * self.page_size * self.num_kv_heads * self.head_dim
    }
    /// Elements of `lse`: `[total_q, 24]`.
    pub fn lse_elems(&self) -> usize {
        self.total_q * self.num_qo_heads
    }
    /// Entries of `qo_indptr` and `kv_indptr`.
    pub fn indptr_len(&self) -> usize {
        self.batch + 1
    }

    /// Checks the declared geometry and the sizes against what the kernels index.
    pub fn check(&self) -> Result<()> {
        for (what, expected, got) in [
            ("num_qo_heads", NUM_QO_HEADS, self.num_qo_heads),
            ("num_kv_heads", NUM_KV_HEADS, self.num_kv_heads),
            ("head_dim", HEAD_DIM, self.head_dim),
            ("page_size", PAGE_SIZE, self.page_size),
        ] {
            if expected != got {
                return Err(Error::UnsupportedGeometry {
                    what,
                    expected,
                    got,
                });
            }
        }
        // Index arrays are int32: every count they address must fit.
        let limit = i32::MAX as u128;
        for (what, value) in [
            ("total_q", self.total_q),
            ("num_pages", self.num_pages),
            ("batch", self.batch),
            ("num_kv_indices", self.num_kv_indices),
        ] {
            if value as u128 > limit {
                return Err(Error::TooLarge {
                    what,
                    value: value as u128,
                    limit,
                });
            }
        }
        Ok(())
    }
}

/// Borrowed view of one call whose inputs are all in host memory.
#[derive(Clone, Copy, Debug)]
pub struct HostProblem<'a> {
    pub dims: Dims,
    /// `[total_q, 24, 128]`
    pub q: &'a [bf16],
    /// `[num_pages, 1, 4, 128]`
    pub k_cache: &'a [bf16],
    /// `[num_pages, 1, 4, 128]`
    pub v_cache: &'a [bf16],
    /// `[batch + 1]`
    pub qo_indptr: &'a [i32],
    /// `[batch + 1]`
    pub kv_indptr: &'a [i32],
    /// `[num_kv_indices]`
    pub kv_indices: &'a [i32],
    pub sm_scale: f32,
}

/// Result of a call, in host memory.
#[derive(Clone, Debug, PartialEq)]
pub struct Output {
    /// `[total_q, 24, 128]`
    pub out: Vec<bf16>,
    /// `[total_q, 24]`, base 2; `-inf` for rows that see no key.
    pub lse: Vec<f32>,
}

/// One sequence of a validated call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seq {
    pub q_start: usize,
    pub q_len: usize,
    pub kv_start: usize,
    pub kv_len: usize,
}

impl Seq {
    /// `kv_len - q_len`: query `i` sees keys `j <= i + delta`.
    pub fn delta(&self) -> i64 {
        self.kv_len as i64 - self.q_len as i64
    }
    /// Number of keys query `i` (0-based in the sequence) sees.
    pub fn visible(&self, i: usize) -> usize {
        (i as i64 + self.delta() + 1).clamp(0, self.kv_len as i64) as usize
    }
}

/// Checks a scale factor.
pub fn check_sm_scale(sm_scale: f32) -> Result<()> {
    if sm_scale.is_finite() {
        Ok(())
    } else {
        Err(Error::NonFiniteScale(sm_scale))
    }
}

/// Checks a buffer's element count against its shape.
pub fn check_len(name: &'static str, expected: usize, got: usize) -> Result<()> {
    if expected == got {
        Ok(())
    } else {
        Err(Error::BufferLength {
            name,
            expected,
            got,
        })
    }
}

/// Checks one indptr: non-empty, starts at 0, non-negative, non-decreasing,
/// ends at `last` (`what` names that total in the error).
pub fn check_indptr(
    name: &'static str,
    indptr: &[i32],
    last: usize,
    what: &'static str,
) -> Result<()> {
    let Some(&first) = indptr.first() else {
        return Err(Error::IndptrEmpty { name });
    };
    if first != 0 {
        return Err(Error::IndptrFirstNotZero {
            name,
            got: first as i64,
        });
    }
    for (index, w) in indptr.windows(2).enumerate() {
        if w[1] < 0 {
            return Err(Error::NegativeEntry {
                name,
                index: index + 1,
                value: w[1] as i64,
            });
        }
        if w[1] < w[0] {
            return Err(Error::IndptrDecreasing {
                name,
                index: index + 1,
                prev: w[0] as i64,
                next: w[1] as i64,
            });
        }
    }
    let got = *indptr.last().unwrap_or(&0) as i64;
    if got != last as i64 {
        return Err(Error::IndptrLast {
            name,
            what,
            expected: last,
            got,
        });
    }
    Ok(())
}

/// Checks both indptrs against each other and against `dims`.
pub fn check_indptrs(dims: &Dims, qo_indptr: &[i32], kv_indptr: &[i32]) -> Result<()> {
    if qo_indptr.is_empty() {
        return Err(Error::IndptrEmpty { name: "qo_indptr" });
    }
    if kv_indptr.is_empty() {
        return Err(Error::IndptrEmpty { name: "kv_indptr" });
    }
    if qo_indptr.len() != kv_indptr.len() {
        return Err(Error::IndptrLengthMismatch {
            qo_len: qo_indptr.len(),
            kv_len: kv_indptr.len(),
        });
    }
    check_len("qo_indptr", dims.indptr_len(), qo_indptr.len())?;
    check_indptr("qo_indptr", qo_indptr, dims.total_q, "total_q")?;
    check_indptr(
        "kv_indptr",
        kv_indptr,
        dims.num_kv_indices,
        "num_kv_indices",
    )?;
    Ok(())
}

/// Checks every page id is in `[0, num_pages)`.
pub fn check_page_ids(dims: &Dims, kv_indices: &[i32]) -> Result<()> {
    for (index, &p) in kv_indices.iter().enumerate() {
        if p < 0 || p as i64 >= dims.num_pages as i64 {
            return Err(Error::PageOutOfRange {
                index,
                page: p as i64,
                num_pages: dims.num_pages,
            });
        }
    }
    Ok(())
}

/// Element counts of a call's input buffers, wherever they live.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InputLens {
    pub q: usize,
    pub k_cache: usize,
    pub v_cache: usize,
    pub kv_indices: usize,
}

/// The checks that need no index contents: geometry, `sm_scale` and the
/// lengths of the tensor and index buffers. Shared by host validation and
/// the GPU API (whose index contents stay in device memory).
pub fn check_shapes(d: &Dims, sm_scale: f32, lens: InputLens) -> Result<()> {
    d.check()?;
    check_sm_scale(sm_scale)?;
    check_len("q", d.q_elems(), lens.q)?;
    check_len("k_cache", d.kv_elems(), lens.k_cache)?;
    check_len("v_cache", d.kv_elems(), lens.v_cache)?;
    check_len("kv_indices", d.num_kv_indices, lens.kv_indices)
}

/// Validates a call whose inputs are all on the host: geometry, buffer
/// lengths, indptrs, page ids and `sm_scale`. Nothing is read out of bounds
/// by a backend after this returns `Ok`.
pub fn validate(p: &HostProblem<'_>) -> Result<()> {
    let d = &p.dims;
    let lens = InputLens {
        q: p.q.len(),
        k_cache: p.k_cache.len(),
        v_cache: p.v_cache.len(),
        kv_indices: p.kv_indices.len(),
    };
    check_shapes(d, p.sm_scale, lens)?;
    check_indptrs(d, p.qo_indptr, p.kv_indptr)?;
    check_page_ids(d, p.kv_indices)?;
    Ok(())
}

/// The sequences of a validated call.
pub fn sequences(qo_indptr: &[i32], kv_indptr: &[i32]) -> Vec<Seq> {
    qo_indptr
        .windows(2)
        .zip(kv_indptr.windows(2))
        .map(|(q, k)| Seq {
            q_start: q[0] as usize,
            q_len: (q[1] - q[0]) as usize,
            kv_start: k[0] as usize,
            kv_len: (k[1] - k[0]) as usize,
        })
        .collect()
}

/// Query-key pairs the causal mask lets through (the FLOP count is
/// `4 * HEAD_DIM * NUM_QO_HEADS` times this).
pub fn visible_pairs(qo_indptr: &[i32], kv_indptr: &[i32]) -> u64 {
    sequences(qo_indptr, kv_indptr)
        .iter()
        .map(|s| (0..s.q_len).map(|i| s.visible(i) as u64).sum::<u64>())
        .sum()
}
