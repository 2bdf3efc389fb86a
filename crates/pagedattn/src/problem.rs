//! The operation's fixed geometry, the description of one call, and validation.
//!
//! A call is one [`Problem`], generic over where its buffers live: host slices
//! ([`HostProblem`]), owned host vectors ([`OwnedProblem`]), cudarc device
//! views ([`DeviceProblem`](crate::DeviceProblem)) or owned device buffers
//! ([`DeviceBuffers`](crate::DeviceBuffers)). Its shapes are checked in one
//! place, [`Problem::check_shapes`]; [`validate`] adds the checks of index
//! contents that need them in host memory. Every backend runs these checks
//! before it touches a buffer.

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
    /// Query tokens of all sequences (rows of `q`).
    pub total_q: usize,
    /// Pages of the KV cache (rows of `k_cache` and `v_cache`).
    pub num_pages: usize,
    /// Sequences.
    pub batch: usize,
    /// Entries of `kv_indices` (keys of all sequences).
    pub num_kv_indices: usize,
    /// Query heads: must be [`NUM_QO_HEADS`].
    pub num_qo_heads: usize,
    /// Key/value heads: must be [`NUM_KV_HEADS`].
    pub num_kv_heads: usize,
    /// Elements per head: must be [`HEAD_DIM`].
    pub head_dim: usize,
    /// Tokens per page: must be [`PAGE_SIZE`].
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

    /// Checks the declared geometry and the sizes against what the kernels
    /// index and what memory can hold: counts within int32, packed rows
    /// (`total_q * 6`) within int32, and no buffer above [`MAX_BUFFER_BYTES`].
    /// Nothing is allocated before this passes.
    ///
    /// ```
    /// use pagedattn::{Dims, Error};
    /// assert!(Dims::new(16, 64, 2, 40).check().is_ok());
    /// // 2e9 pages of 1 KiB each side: refused, not allocated.
    /// let huge = Dims::new(1, 2_000_000_000, 1, 1).check();
    /// assert!(matches!(huge, Err(Error::TooLarge { what: "k_cache bytes", .. })));
    /// ```
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
        // The kernel numbers packed rows (token x query head of a group) in int32.
        let rows = self.total_q as u128 * GROUP_SIZE as u128;
        if rows > limit {
            return Err(Error::TooLarge {
                what: "packed query rows (total_q * 6)",
                value: rows,
                limit,
            });
        }
        // Buffers no machine can hold are refused here, before anything is
        // allocated (an allocation that size would abort the process).
        let elems = |n: usize, per: usize| n as u128 * per as u128;
        let row = (self.num_qo_heads * self.head_dim) as u128;
        let kv_row = (self.page_size * self.num_kv_heads * self.head_dim) as u128;
        for (what, bytes) in [
            ("q bytes", elems(self.total_q, 2) * row),
            ("k_cache bytes", elems(self.num_pages, 2) * kv_row),
            (
                "lse bytes",
                elems(self.total_q, 4) * self.num_qo_heads as u128,
            ),
        ] {
            if bytes > MAX_BUFFER_BYTES as u128 {
                return Err(Error::TooLarge {
                    what,
                    value: bytes,
                    limit: MAX_BUFFER_BYTES as u128,
                });
            }
        }
        Ok(())
    }

    /// Bytes of the six input buffers (`q`, both caches, the index arrays).
    pub fn input_bytes(&self) -> u64 {
        (2 * self.q_elems()
            + 4 * self.kv_elems()
            + 4 * (2 * self.indptr_len() + self.num_kv_indices)) as u64
    }

    /// Bytes of the two outputs (`output` bf16, `lse` f32).
    pub fn output_bytes(&self) -> u64 {
        (2 * self.q_elems() + 4 * self.lse_elems()) as u64
    }
}

/// The largest buffer a call may declare: 1 TiB, more than any GPU's memory.
/// [`Dims::check`] refuses larger ones before anything is allocated.
pub const MAX_BUFFER_BYTES: u64 = 1 << 40;

/// One call: its sizes, its six input buffers and its softmax scale.
///
/// Generic over where the buffers live, so that one description serves every
/// backend: `T` holds bf16 tensors, `I` int32 index arrays. The aliases are
/// [`HostProblem`] (borrowed host slices), [`OwnedProblem`] (owned vectors)
/// and, for the GPU, [`DeviceProblem`](crate::DeviceProblem) (cudarc views).
///
/// Every buffer must have exactly the length its shape needs; the checks are
/// [`Problem::check_shapes`] (everything but index contents) and, for host
/// buffers, [`validate`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Problem<T, I> {
    /// The call's declared sizes.
    pub dims: Dims,
    /// Queries, `[total_q, 24, 128]` bf16.
    pub q: T,
    /// Key cache, `[num_pages, 1, 4, 128]` bf16.
    pub k_cache: T,
    /// Value cache, `[num_pages, 1, 4, 128]` bf16.
    pub v_cache: T,
    /// Query offsets of the sequences, `[batch + 1]`: sequence `b` owns query
    /// rows `qo_indptr[b]..qo_indptr[b + 1]`.
    pub qo_indptr: I,
    /// Key offsets of the sequences into `kv_indices`, `[batch + 1]`.
    pub kv_indptr: I,
    /// Page id of every key, `[num_kv_indices]`, each in `[0, num_pages)`.
    pub kv_indices: I,
    /// Softmax scale of the logits (natural-log domain), finite; usually
    /// [`default_sm_scale`].
    pub sm_scale: f32,
}

/// A call whose inputs are all borrowed host slices: what the CPU backend,
/// [`validate`] and the harness take.
pub type HostProblem<'a> = Problem<&'a [bf16], &'a [i32]>;

/// A call that owns its host inputs (test inputs, drawn workloads).
pub type OwnedProblem = Problem<Vec<bf16>, Vec<i32>>;

/// A buffer whose element count the shape checks can read, wherever it lives
/// (host slices and vectors here; cudarc views and slices in
/// [`backend::cuda`](crate::backend::cuda)).
pub trait Buffer {
    /// Number of elements.
    fn elems(&self) -> usize;
}

impl<T> Buffer for &[T] {
    fn elems(&self) -> usize {
        self.len()
    }
}

impl<T> Buffer for Vec<T> {
    fn elems(&self) -> usize {
        self.len()
    }
}

impl<T: Buffer, I: Buffer> Problem<T, I> {
    /// The checks that need no index contents, shared by every backend and
    /// the GPU launch API (whose index contents stay in device memory):
    /// [`Dims::check`], a finite `sm_scale`, and the length of every input
    /// buffer (the indptrs with [`Error::IndptrEmpty`] and
    /// [`Error::IndptrLengthMismatch`] where those apply).
    pub fn check_shapes(&self) -> Result<()> {
        let d = &self.dims;
        d.check()?;
        check_sm_scale(self.sm_scale)?;
        check_len("q", d.q_elems(), self.q.elems())?;
        check_len("k_cache", d.kv_elems(), self.k_cache.elems())?;
        check_len("v_cache", d.kv_elems(), self.v_cache.elems())?;
        check_len("kv_indices", d.num_kv_indices, self.kv_indices.elems())?;
        check_indptr_lens(d, self.qo_indptr.elems(), self.kv_indptr.elems())
    }
}

impl OwnedProblem {
    /// An owned copy of a borrowed call.
    pub fn from_problem(p: &HostProblem<'_>) -> OwnedProblem {
        Problem {
            dims: p.dims,
            q: p.q.to_vec(),
            k_cache: p.k_cache.to_vec(),
            v_cache: p.v_cache.to_vec(),
            qo_indptr: p.qo_indptr.to_vec(),
            kv_indptr: p.kv_indptr.to_vec(),
            kv_indices: p.kv_indices.to_vec(),
            sm_scale: p.sm_scale,
        }
    }

    /// A borrowed view, for the backends.
    pub fn problem(&self) -> HostProblem<'_> {
        Problem {
            dims: self.dims,
            q: &self.q,
            k_cache: &self.k_cache,
            v_cache: &self.v_cache,
            qo_indptr: &self.qo_indptr,
            kv_indptr: &self.kv_indptr,
            kv_indices: &self.kv_indices,
            sm_scale: self.sm_scale,
        }
    }
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
    /// First query row of the sequence.
    pub q_start: usize,
    /// Its query tokens.
    pub q_len: usize,
    /// Its first entry in `kv_indices`.
    pub kv_start: usize,
    /// Its keys.
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

/// Checks the lengths of both indptrs: non-empty, equal, `batch + 1`.
pub fn check_indptr_lens(dims: &Dims, qo_len: usize, kv_len: usize) -> Result<()> {
    if qo_len == 0 {
        return Err(Error::IndptrEmpty { name: "qo_indptr" });
    }
    if kv_len == 0 {
        return Err(Error::IndptrEmpty { name: "kv_indptr" });
    }
    if qo_len != kv_len {
        return Err(Error::IndptrLengthMismatch { qo_len, kv_len });
    }
    check_len("qo_indptr", dims.indptr_len(), qo_len)
}

/// Checks both indptrs against each other and against `dims`: their lengths
/// ([`check_indptr_lens`]) and contents ([`check_indptr`]).
pub fn check_indptrs(dims: &Dims, qo_indptr: &[i32], kv_indptr: &[i32]) -> Result<()> {
    check_indptr_lens(dims, qo_indptr.len(), kv_indptr.len())?;
    check_indptr("qo_indptr", qo_indptr, dims.total_q, "total_q")?;
    check_indptr(
        "kv_indptr",
        kv_indptr,
        dims.num_kv_indices,
        "num_kv_indices",
    )?;
    Ok(())
}

/// Checks every page id is in `[0, num_pages)`; the error names the first
/// one that is not.
pub fn check_page_ids(dims: &Dims, kv_indices: &[i32]) -> Result<()> {
    // As unsigned, a negative id is above every limit, so one compare tests
    // both ends; a block is tested without an early exit, which the compiler
    // vectorises, and searched only when it fails (HostPlan::new of 43
    // sequences over 335k page ids: 137 -> 24 us on the build machine).
    let limit = dims.num_pages.min(1 << 31) as u32;
    const BLOCK: usize = 1024;
    for (b, block) in kv_indices.chunks(BLOCK).enumerate() {
        if block.iter().fold(true, |ok, &p| ok & ((p as u32) < limit)) {
            continue;
        }
        if let Some((i, &p)) = block
            .iter()
            .enumerate()
            .find(|&(_, &p)| (p as u32) >= limit)
        {
            return Err(Error::PageOutOfRange {
                index: b * BLOCK + i,
                page: p as i64,
                num_pages: dims.num_pages,
            });
        }
    }
    Ok(())
}

/// Element counts of a call's input buffers, for callers that have only
/// the counts (raw device addresses).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct InputLens {
    pub q: usize,
    pub k_cache: usize,
    pub v_cache: usize,
    pub kv_indices: usize,
}

/// [`Problem::check_shapes`] without the indptrs, on element counts.
pub(crate) fn check_shapes(d: &Dims, sm_scale: f32, lens: InputLens) -> Result<()> {
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
///
/// ```
/// use pagedattn::problem::{validate, HostProblem};
/// use pagedattn::{half::bf16, Dims, Error};
/// let dims = Dims::new(1, 1, 1, 1);
/// let q = vec![bf16::ZERO; dims.q_elems()];
/// let kv = vec![bf16::ZERO; dims.kv_elems()];
/// let p = HostProblem {
///     dims, q: &q, k_cache: &kv, v_cache: &kv,
///     qo_indptr: &[0, 1], kv_indptr: &[0, 1], kv_indices: &[1], // page 1 of 1
///     sm_scale: 1.0,
/// };
/// assert!(matches!(validate(&p), Err(Error::PageOutOfRange { index: 0, page: 1, .. })));
/// ```
pub fn validate(p: &HostProblem<'_>) -> Result<()> {
    let d = &p.dims;
    p.check_shapes()?;
    check_indptr("qo_indptr", p.qo_indptr, d.total_q, "total_q")?;
    check_indptr("kv_indptr", p.kv_indptr, d.num_kv_indices, "num_kv_indices")?;
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
