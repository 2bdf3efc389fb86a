//! The harness's errors: the library's, plus workload files and I/O.

/// Result alias of the harness.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why a harness step failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Error {
    /// A call refused or failed in the library (or on the device).
    #[error(transparent)]
    Call(#[from] pagedattn::Error),
    /// A workload file that cannot be parsed, or a line that does not validate.
    #[error("{file}:{line}: {msg}")]
    Workload {
        /// The file as given.
        file: String,
        /// 1-based line number.
        line: usize,
        /// What is wrong, naming the workload once its name could be read.
        msg: String,
    },
    /// A file that cannot be read or written (with the path it concerned).
    #[error("{path}: {msg}")]
    Io {
        /// The path.
        path: String,
        /// What went wrong.
        msg: String,
    },
}

impl From<pagedattn::cudarc::driver::DriverError> for Error {
    fn from(e: pagedattn::cudarc::driver::DriverError) -> Self {
        Error::Call(e.into())
    }
}
