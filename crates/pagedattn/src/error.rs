//! Typed errors. Every way a call can be refused or fail has a variant that
//! names the input and the problem; nothing in the library panics on bad input.

use cudarc::driver::{sys::CUresult, DriverError};

/// Result alias used throughout the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why a call was refused or failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Error {
    /// A head count, head_dim or page size that is not the operation's.
    #[error("{what} is {got}, but this operation is fixed at {expected} (24 query heads, 4 kv heads, head_dim 128, page_size 1)")]
    UnsupportedGeometry {
        /// The field of [`Dims`](crate::Dims).
        what: &'static str,
        /// The operation's value.
        expected: usize,
        /// The declared value.
        got: usize,
    },
    /// A buffer whose element count does not match the shape it was declared with.
    #[error("buffer `{name}` has {got} elements, but its shape needs {expected}")]
    BufferLength {
        /// The buffer.
        name: &'static str,
        /// Elements its shape needs.
        expected: usize,
        /// Elements it has.
        got: usize,
    },
    /// `qo_indptr` or `kv_indptr` has no entries.
    #[error("`{name}` is empty: it needs batch + 1 >= 1 entries")]
    IndptrEmpty {
        /// The indptr.
        name: &'static str,
    },
    /// `qo_indptr` and `kv_indptr` disagree on the batch size.
    #[error("`qo_indptr` has {qo_len} entries but `kv_indptr` has {kv_len}: both need batch + 1")]
    IndptrLengthMismatch {
        /// Entries of `qo_indptr`.
        qo_len: usize,
        /// Entries of `kv_indptr`.
        kv_len: usize,
    },
    /// First entry of an indptr is not 0.
    #[error("`{name}[0]` is {got}, must be 0")]
    IndptrFirstNotZero {
        /// The indptr.
        name: &'static str,
        /// Its first entry.
        got: i64,
    },
    /// A negative entry in an index array.
    #[error("`{name}[{index}]` is {value}: entries must be non-negative")]
    NegativeEntry {
        /// The index array.
        name: &'static str,
        /// Position of the entry.
        index: usize,
        /// The entry.
        value: i64,
    },
    /// An indptr that decreases.
    #[error("`{name}` decreases at index {index}: {prev} then {next}")]
    IndptrDecreasing {
        /// The indptr.
        name: &'static str,
        /// Position of the smaller entry.
        index: usize,
        /// The entry before it.
        prev: i64,
        /// The smaller entry.
        next: i64,
    },
    /// Last entry of an indptr is not the total it must end at.
    #[error("`{name}[last]` is {got}, must equal {what} = {expected}")]
    IndptrLast {
        /// The indptr.
        name: &'static str,
        /// The total it must end at (`total_q` or `num_kv_indices`).
        what: &'static str,
        /// That total.
        expected: usize,
        /// Its last entry.
        got: i64,
    },
    /// A page id outside `[0, num_pages)`.
    #[error("`kv_indices[{index}]` is page {page}, outside [0, {num_pages})")]
    PageOutOfRange {
        /// Position in `kv_indices`.
        index: usize,
        /// The page id.
        page: i64,
        /// Pages in the cache.
        num_pages: usize,
    },
    /// `sm_scale` is NaN or infinite.
    #[error("`sm_scale` is {0}: it must be finite")]
    NonFiniteScale(f32),
    /// A size whose element count, byte count or packed row count exceeds what
    /// the index types (or any machine's memory) can hold.
    #[error("{what} is too large: {value} exceeds {limit}")]
    TooLarge {
        /// What is counted.
        what: &'static str,
        /// The count.
        value: u128,
        /// The largest accepted.
        limit: u128,
    },
    /// A call whose buffers do not fit in the memory that is there; refused
    /// before anything is allocated.
    #[error("the call needs {needed} bytes of {what} memory, but only {available} are available")]
    InsufficientMemory {
        /// `"host"` or `"device"`.
        what: &'static str,
        /// Bytes the call's buffers take.
        needed: u64,
        /// Bytes available (device: free memory; host: `MemAvailable`).
        available: u64,
    },
    /// A device pointer not aligned as the kernel's 16-byte loads need.
    #[error("device buffer `{name}` at {addr:#x} is not {align}-byte aligned")]
    Misaligned {
        /// The buffer.
        name: &'static str,
        /// Its address.
        addr: u64,
        /// The alignment it needs.
        align: u64,
    },
    /// An output buffer overlapping another buffer of the call.
    #[error("device buffer `{a}` overlaps `{b}`: outputs must not alias any other buffer")]
    Aliasing {
        /// The output.
        a: &'static str,
        /// The buffer it overlaps.
        b: &'static str,
    },
    /// A workspace used on a stream (or context) other than the one it was made for.
    #[error("the workspace belongs to another stream or context: make one workspace per stream (PagedPrefill::workspace)")]
    WorkspaceStream,
    /// A host plan used for a call of other dimensions.
    #[error("host plan does not match the call: {0}")]
    PlanMismatch(String),
    /// The checked GPU mode found bad index contents in device memory.
    #[error("the kernel found invalid index data in device memory: {0}")]
    DeviceIndexData(String),
    /// No CUDA driver or device is available.
    #[error("no CUDA device: {0}")]
    NoDevice(String),
    /// The device is not a Hopper (sm_90) GPU.
    #[error("unsupported GPU: {0}")]
    UnsupportedDevice(String),
    /// A loaded kernel module that is not what this host code expects (a
    /// variant cubin of other sources, say).
    #[error("kernel module mismatch: {0}")]
    KernelMismatch(String),
    /// An error reported by the CUDA driver, with its `CUresult`.
    #[error("CUDA driver error {name} ({}): {message}", *code as u32)]
    Driver {
        /// The driver's result code.
        code: CUresult,
        /// Its name, such as `CUDA_ERROR_OUT_OF_MEMORY`.
        name: String,
        /// The driver's description of it.
        message: String,
    },
    /// A requested backend is not available on this machine or in this build.
    #[error("backend `{0}` is not available: {1}")]
    BackendUnavailable(String, String),
}

impl Error {
    /// The driver's `CUresult` when this is an [`Error::Driver`].
    pub fn driver_code(&self) -> Option<CUresult> {
        match self {
            Error::Driver { code, .. } => Some(*code),
            _ => None,
        }
    }
}

impl From<DriverError> for Error {
    fn from(e: DriverError) -> Self {
        // The name from the enum itself (no driver call); the description
        // from the driver, which is loaded since it returned the error.
        let message = e
            .error_string()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|_| "(no description from the driver)".into());
        Error::Driver {
            code: e.0,
            name: format!("{:?}", e.0),
            message,
        }
    }
}
