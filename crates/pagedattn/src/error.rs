//! Typed errors. Every way a call can be refused or fail has a variant that
//! names the input and the problem; nothing in the library panics on bad input.

/// Result alias used throughout the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Error {
    /// A head count, head_dim or page size that is not the operation's.
    #[error("{what} is {got}, but this operation is fixed at {expected} (24 query heads, 4 kv heads, head_dim 128, page_size 1)")]
    UnsupportedGeometry {
        what: &'static str,
        expected: usize,
        got: usize,
    },
    /// A buffer whose element count does not match the shape it was declared with.
    #[error("buffer `{name}` has {got} elements, but its shape needs {expected}")]
    BufferLength {
        name: &'static str,
        expected: usize,
        got: usize,
    },
    /// `qo_indptr` or `kv_indptr` has no entries.
    #[error("`{name}` is empty: it needs batch + 1 >= 1 entries")]
    IndptrEmpty { name: &'static str },
    /// `qo_indptr` and `kv_indptr` disagree on the batch size.
    #[error("`qo_indptr` has {qo_len} entries but `kv_indptr` has {kv_len}: both need batch + 1")]
    IndptrLengthMismatch { qo_len: usize, kv_len: usize },
    /// First entry of an indptr is not 0.
    #[error("`{name}[0]` is {got}, must be 0")]
    IndptrFirstNotZero { name: &'static str, got: i64 },
    /// A negative entry in an index array.
    #[error("`{name}[{index}]` is {value}: entries must be non-negative")]
    NegativeEntry {
        name: &'static str,
        index: usize,
        value: i64,
    },
    /// An indptr that decreases.
    #[error("`{name}` decreases at index {index}: {prev} then {next}")]
    IndptrDecreasing {
        name: &'static str,
        index: usize,
        prev: i64,
        next: i64,
    },
    /// Last entry of an indptr is not the total it must end at.
    #[error("`{name}[last]` is {got}, must equal {what} = {expected}")]
    IndptrLast {
        name: &'static str,
        what: &'static str,
        expected: usize,
        got: i64,
    },
    /// A page id outside `[0, num_pages)`.
    #[error("`kv_indices[{index}]` is page {page}, outside [0, {num_pages})")]
    PageOutOfRange {
        index: usize,
        page: i64,
        num_pages: usize,
    },
    /// `sm_scale` is NaN or infinite.
    #[error("`sm_scale` is {0}: it must be finite")]
    NonFiniteScale(f32),
    /// A size whose element count or byte offset would overflow the index types.
    #[error("{what} is too large: {value} exceeds {limit}")]
    TooLarge {
        what: &'static str,
        value: u128,
        limit: u128,
    },
    /// A device pointer not aligned as the kernel's 16-byte loads need.
    #[error("device buffer `{name}` at {addr:#x} is not {align}-byte aligned")]
    Misaligned {
        name: &'static str,
        addr: u64,
        align: u64,
    },
    /// An output buffer overlapping another buffer of the call.
    #[error("device buffer `{a}` overlaps `{b}`: outputs must not alias any other buffer")]
    Aliasing { a: &'static str, b: &'static str },
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
    /// An error reported by the CUDA driver.
    #[error("CUDA driver error: {0}")]
    Driver(String),
    /// A workload file that cannot be read or parsed.
    #[error("{file}:{line}: {msg}")]
    Workload {
        file: String,
        line: usize,
        msg: String,
    },
    /// Any other I/O failure (with the path it concerned).
    #[error("{path}: {msg}")]
    Io { path: String, msg: String },
    /// A requested backend is not available on this machine.
    #[error("backend `{0}` is not available: {1}")]
    BackendUnavailable(String, String),
}

impl From<cudarc::driver::DriverError> for Error {
    fn from(e: cudarc::driver::DriverError) -> Self {
        Error::Driver(e.to_string())
    }
}
