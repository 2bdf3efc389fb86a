//! Hopper CUDA backend (being written). Until then `CudaBackend::new` reports
//! that no device is available.

use crate::backend::{Backend, Peaks, Prepared};
use crate::error::{Error, Result};
use crate::problem::{HostProblem, Output};

/// The CUDA backend bound to one device.
pub struct CudaBackend {
    _private: (),
}

impl CudaBackend {
    /// Opens device 0. `Err(Error::NoDevice)` when there is no driver or GPU.
    pub fn new() -> Result<Self> {
        Err(Error::NoDevice("CUDA backend not built yet".into()))
    }
    /// Output of the plain fp32 reference kernel (independent of the fast kernel).
    pub fn reference(&self, _p: &HostProblem<'_>) -> Result<Output> {
        Err(Error::NoDevice("CUDA backend not built yet".into()))
    }
}

impl Backend for CudaBackend {
    fn name(&self) -> &'static str {
        "cuda"
    }
    fn device(&self) -> String {
        String::new()
    }
    fn prepare<'a>(&'a self, _p: &HostProblem<'_>) -> Result<Box<dyn Prepared + 'a>> {
        Err(Error::NoDevice("CUDA backend not built yet".into()))
    }
    fn peaks(&self) -> Result<Peaks> {
        Ok(Peaks::H200_DEFAULT)
    }
}
