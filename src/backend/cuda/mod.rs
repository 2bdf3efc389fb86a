//! Hopper CUDA backend.
//!
//! - [`PagedPrefill`] (in `kernel`): the public GPU API on cudarc buffers and streams;
//! - [`CudaBackend`]: the [`Backend`] the benchmark drives, with timing per SPEC.md
//!   (CUDA events around a graph replay of one call, L2 flushed before each).

mod ffi;
mod kernel;
mod timing;

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, CudaViewMut, DeviceRepr, ValidAsZeroBits};
use half::bf16;

pub use ffi::PTXAS_REPORT;
pub use kernel::{DeviceProblem, Options, PagedPrefill, RawCall, Workspace};

use crate::backend::{Backend, Peaks, Prepared};
use crate::error::{Error, Result};
use crate::problem::{validate, Dims, HostProblem, Output};
use crate::schedule::{SplitPolicy, TileConfig};

/// The CUDA backend bound to device 0, with its own stream.
pub struct CudaBackend {
    stream: Arc<CudaStream>,
    attn: PagedPrefill,
    device: String,
    l2_bytes: usize,
    timing: Timing,
}

/// What `Prepared::time` measures on the GPU.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Timing {
    /// SPEC.md: CUDA events around a graph replay of one unchecked launch,
    /// L2 flushed before each (the kernel-only number).
    #[default]
    Graph,
    /// Host wall clock of one `launch_checked` call (reset of the error flag,
    /// launch, flag read back, stream synchronised), L2 flushed before each:
    /// what the checked mode costs a caller.
    Checked,
    /// Host wall clock of one unchecked `launch` and a stream synchronise,
    /// L2 flushed before each: the same clock as `Checked`, so the two differ
    /// by exactly the checked mode's extra work.
    Eager,
}

impl CudaBackend {
    /// Opens device 0. `Err(Error::NoDevice)` when there is no driver or GPU,
    /// `Err(Error::UnsupportedDevice)` when it is not a Hopper GPU.
    pub fn new() -> Result<Self> {
        // SAFETY: only probes whether libcuda can be opened (no call into it).
        if !unsafe { cudarc::driver::sys::is_culib_present() } {
            return Err(Error::NoDevice(
                "the CUDA driver library (libcuda) could not be loaded".into(),
            ));
        }
        let ctx = CudaContext::new(0).map_err(|e| Error::NoDevice(e.to_string()))?;
        // One stream per backend; graphs are captured on it, so cudarc's
        // cross-stream event tracking (which records events on every use)
        // stays off.
        // SAFETY: every buffer of this backend is used on `stream` only.
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx.new_stream()?;
        let attn = PagedPrefill::with_options(&ctx, options_from_env()?)?;
        let name = ctx.name().unwrap_or_else(|_| "unknown GPU".into());
        let sms = ctx
            .attribute(
                cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
            )
            .unwrap_or(0);
        let l2_bytes = ctx
            .attribute(cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)
            .unwrap_or(0) as usize;
        let device = format!("{name} ({sms} SMs, {} MB L2)", l2_bytes >> 20);
        Ok(CudaBackend {
            stream,
            attn,
            device,
            l2_bytes: l2_bytes.max(1 << 20),
            timing: Timing::Graph,
        })
    }

    /// The loaded kernels.
    pub fn kernel(&self) -> &PagedPrefill {
        &self.attn
    }

    /// Chooses what `Prepared::time` measures.
    pub fn set_timing(&mut self, timing: Timing) {
        self.timing = timing;
    }

    /// Reloads the kernels with other options (same device and stream).
    pub fn set_options(&mut self, opts: Options) -> Result<()> {
        self.attn = PagedPrefill::with_options(self.stream.context(), opts)?;
        Ok(())
    }

    /// The backend's stream.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// Output of the plain fp32 reference kernel (independent of the fast kernel).
    pub fn reference(&self, p: &HostProblem<'_>) -> Result<Output> {
        validate(p)?;
        let mut bufs = DeviceBuffers::upload(&self.attn, &self.stream, p)?;
        bufs.poison(&self.stream)?;
        bufs.with_views(|v, out, lse, _| self.attn.launch_reference(&self.stream, v, out, lse))?;
        bufs.download(&self.stream)
    }
}

/// A call's buffers on the device. Each allocation holds at least one
/// element (the driver refuses empty allocations); views of the call's exact
/// lengths are what the kernels see.
pub struct DeviceBuffers {
    pub dims: Dims,
    pub sm_scale: f32,
    pub q: CudaSlice<bf16>,
    pub k_cache: CudaSlice<bf16>,
    pub v_cache: CudaSlice<bf16>,
    pub qo_indptr: CudaSlice<i32>,
    pub kv_indptr: CudaSlice<i32>,
    pub kv_indices: CudaSlice<i32>,
    pub out: CudaSlice<bf16>,
    pub lse: CudaSlice<f32>,
    /// The workspace of calls on the stream the buffers were uploaded with.
    pub workspace: Workspace,
    lens: [usize; 6],
}

fn upload<T: DeviceRepr + ValidAsZeroBits>(
    stream: &Arc<CudaStream>,
    host: &[T],
) -> Result<CudaSlice<T>> {
    if host.is_empty() {
        return Ok(stream.alloc_zeros::<T>(1)?);
    }
    Ok(stream.clone_htod(host)?)
}

impl DeviceBuffers {
    /// Uploads a host problem and allocates its outputs and a workspace for
    /// `attn` on `stream`.
    pub fn upload(
        attn: &PagedPrefill,
        stream: &Arc<CudaStream>,
        p: &HostProblem<'_>,
    ) -> Result<Self> {
        Ok(DeviceBuffers {
            dims: p.dims,
            sm_scale: p.sm_scale,
            q: upload(stream, p.q)?,
            k_cache: upload(stream, p.k_cache)?,
            v_cache: upload(stream, p.v_cache)?,
            qo_indptr: upload(stream, p.qo_indptr)?,
            kv_indptr: upload(stream, p.kv_indptr)?,
            kv_indices: upload(stream, p.kv_indices)?,
            out: stream.alloc_zeros::<bf16>(p.dims.q_elems().max(1))?,
            lse: stream.alloc_zeros::<f32>(p.dims.lse_elems().max(1))?,
            workspace: attn.workspace(stream)?,
            lens: [
                p.q.len(),
                p.k_cache.len(),
                p.v_cache.len(),
                p.qo_indptr.len(),
                p.kv_indptr.len(),
                p.kv_indices.len(),
            ],
        })
    }

    /// Runs `f` with the input views, mutable output views and the
    /// workspace of this call.
    pub fn with_views<R>(
        &mut self,
        f: impl FnOnce(
            &DeviceProblem<'_>,
            &mut CudaViewMut<'_, bf16>,
            &mut CudaViewMut<'_, f32>,
            &mut Workspace,
        ) -> R,
    ) -> R {
        let [nq, nk, nv, nqo, nkvp, nidx] = self.lens;
        let (q, k, v) = (
            self.q.slice(0..nq),
            self.k_cache.slice(0..nk),
            self.v_cache.slice(0..nv),
        );
        let (qo, kvp, idx) = (
            self.qo_indptr.slice(0..nqo),
            self.kv_indptr.slice(0..nkvp),
            self.kv_indices.slice(0..nidx),
        );
        let views = DeviceProblem {
            dims: self.dims,
            q: &q,
            k_cache: &k,
            v_cache: &v,
            qo_indptr: &qo,
            kv_indptr: &kvp,
            kv_indices: &idx,
            sm_scale: self.sm_scale,
        };
        let mut out = self.out.slice_mut(0..self.dims.q_elems());
        let mut lse = self.lse.slice_mut(0..self.dims.lse_elems());
        f(&views, &mut out, &mut lse, &mut self.workspace)
    }

    /// Fills the outputs with NaN bytes, so that an unwritten element shows.
    pub fn poison(&mut self, stream: &CudaStream) -> Result<()> {
        timing::fill_bytes(stream, &mut self.out, 0xff)?;
        timing::fill_bytes(stream, &mut self.lse, 0xff)?;
        Ok(())
    }

    /// Copies the outputs back (synchronises).
    pub fn download(&self, stream: &Arc<CudaStream>) -> Result<Output> {
        let out = stream.clone_dtoh(&self.out.slice(0..self.dims.q_elems()))?;
        let lse = stream.clone_dtoh(&self.lse.slice(0..self.dims.lse_elems()))?;
        stream.synchronize()?;
        Ok(Output { out, lse })
    }
}

/// A workload bound to the GPU: its buffers and a graph of one call.
struct CudaPrepared<'a> {
    backend: &'a CudaBackend,
    bufs: DeviceBuffers,
}

impl Prepared for CudaPrepared<'_> {
    fn run(&mut self) -> Result<Output> {
        let b = self.backend;
        self.bufs.poison(&b.stream)?;
        self.bufs
            .with_views(|v, out, lse, ws| b.attn.launch_checked(&b.stream, v, out, lse, ws))?;
        self.bufs.download(&b.stream)
    }

    fn time(&mut self, warmup: usize, reps: usize) -> Result<Vec<f64>> {
        let b = self.backend;
        if b.timing == Timing::Checked {
            return timing::time_host(&b.stream, b.l2_bytes, warmup, reps, || {
                self.bufs
                    .with_views(|v, out, lse, ws| b.attn.launch_checked(&b.stream, v, out, lse, ws))
            });
        }
        if b.timing == Timing::Eager {
            return timing::time_host(&b.stream, b.l2_bytes, warmup, reps, || {
                self.bufs
                    .with_views(|v, out, lse, ws| b.attn.launch(&b.stream, v, out, lse, ws))?;
                b.stream.synchronize()?;
                Ok(())
            });
        }
        let graph = self.bufs.with_views(|v, out, lse, ws| {
            timing::capture(&b.stream, || b.attn.launch(&b.stream, v, out, lse, ws))
        })?;
        timing::time_graph(&b.stream, graph.as_ref(), b.l2_bytes, warmup, reps)
    }
}

impl Backend for CudaBackend {
    fn name(&self) -> &'static str {
        "cuda"
    }
    fn device(&self) -> String {
        match self.timing {
            Timing::Graph => self.device.clone(),
            Timing::Checked => format!("{} [timing: checked launches, host clock]", self.device),
            Timing::Eager => format!("{} [timing: unchecked launches, host clock]", self.device),
        }
    }
    fn prepare<'a>(&'a self, p: &HostProblem<'_>) -> Result<Box<dyn Prepared + 'a>> {
        validate(p)?;
        let bufs = DeviceBuffers::upload(&self.attn, &self.stream, p)?;
        Ok(Box::new(CudaPrepared {
            backend: self,
            bufs,
        }))
    }
    fn peaks(&self) -> Result<Peaks> {
        timing::measure_peaks(&self.stream)
    }
}

/// Kernel options from the environment, for the benchmark and tests:
/// `PAGEDATTN_TILE=m64|m128` forces a tile configuration,
/// `PAGEDATTN_SPLIT=auto|never|N` the split policy,
/// `PAGEDATTN_ATTENTION_CUBIN=path` loads a variant cubin,
/// `PAGEDATTN_PERSISTENT=0` launches one CTA per tile.
pub fn options_from_env() -> Result<Options> {
    let tile = match std::env::var("PAGEDATTN_TILE").as_deref() {
        Ok("m64") => Some(TileConfig::M64),
        Ok("m128") => Some(TileConfig::M128),
        _ => None,
    };
    let split = match std::env::var("PAGEDATTN_SPLIT").as_deref() {
        Ok("never") => SplitPolicy::Never,
        Ok(n) => n.parse().map(SplitPolicy::Blocks).unwrap_or_default(),
        Err(_) => SplitPolicy::Auto,
    };
    let attention_cubin = match std::env::var_os("PAGEDATTN_ATTENTION_CUBIN").filter(|p| !p.is_empty()) {
        Some(path) => Some(std::fs::read(&path).map_err(|e| Error::Io {
            path: path.to_string_lossy().into_owned(),
            msg: e.to_string(),
        })?),
        None => None,
    };
    Ok(Options {
        tile,
        split,
        attention_cubin,
        one_cta_per_unit: std::env::var("PAGEDATTN_PERSISTENT").as_deref() == Ok("0"),
    })
}
