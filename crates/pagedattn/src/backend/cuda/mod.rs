//! Hopper CUDA backend.
//!
//! - [`PagedPrefill`]: the launch API on cudarc buffers and streams (load the
//!   kernels into a context, make a [`Workspace`] per stream, launch a
//!   [`DeviceProblem`]); [`RawCall`] and the `*_raw` methods for bindings
//!   that hold raw device addresses;
//! - [`DeviceBuffers`]: a call's inputs, outputs and workspace owned in device
//!   memory, uploaded from a [`HostProblem`] (refused before allocating when
//!   it does not fit);
//! - [`CudaBackend`]: device 0, a stream and the loaded kernels, opened
//!   without panicking on machines without a GPU or driver.
//!
//! The kernels are compiled at build time (the `cuda` feature, on by
//! default); a build without them still has this API, and
//! [`PagedPrefill::new`] then returns [`Error::BackendUnavailable`] saying the
//! crate was built without kernels.

mod ffi;
mod kernel;

use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaSlice, CudaStream, CudaView, CudaViewMut, DevicePtrMut, DeviceRepr,
    ValidAsZeroBits,
};
use half::bf16;

pub use kernel::{
    DevicePlan, DeviceProblem, LaunchInfo, Options, PagedPrefill, RawCall, Workspace,
};

use crate::error::{Error, Result};
use crate::problem::{validate, Buffer, HostProblem, Output, Problem};

/// Whether this build embeds the kernels (the `cuda` feature, with nvcc found
/// at build time).
pub const HAS_KERNELS: bool = cfg!(pagedattn_kernels);

/// ptxas's report of the kernel build (registers, spills per entry point), or
/// a line saying the build has no kernels.
pub const PTXAS_REPORT: &str = ffi::PTXAS_REPORT;

/// Why [`PagedPrefill::new`] fails in a build without kernels.
const WITHOUT_KERNELS: &str = if cfg!(feature = "cuda") {
    "built without kernels: no nvcc (or CUTLASS) could be found or installed at build time \
     (see the build warning; set NVCC and CUTLASS_INCLUDE, or CUDA_HOME, and rebuild)"
} else {
    "built without kernels: the `cuda` feature is off (build with default features to compile them)"
};

impl<T> Buffer for &CudaView<'_, T> {
    fn elems(&self) -> usize {
        self.len()
    }
}

impl<T> Buffer for CudaSlice<T> {
    fn elems(&self) -> usize {
        self.len()
    }
}

/// Device 0 with its own stream and the kernels loaded: the shortest way to
/// the GPU for tests, examples and the benchmark.
///
/// [`CudaBackend::new`] never panics: without a driver it returns
/// [`Error::NoDevice`], on a GPU that is not Hopper
/// [`Error::UnsupportedDevice`], in a build without kernels
/// [`Error::BackendUnavailable`].
///
/// ```no_run
/// use pagedattn::{CudaBackend, Error};
/// match CudaBackend::new() {
///     Ok(gpu) => println!("running on {}", gpu.device()),
///     Err(e @ (Error::NoDevice(_) | Error::UnsupportedDevice(_))) => println!("no Hopper GPU: {e}"),
///     Err(e) => return Err(e),
/// }
/// # Ok::<(), Error>(())
/// ```
pub struct CudaBackend {
    stream: Arc<CudaStream>,
    attn: PagedPrefill,
    device: String,
}

/// Opens the CUDA context of device 0, or says why there is none.
pub fn open_device() -> Result<Arc<CudaContext>> {
    // SAFETY: only probes whether libcuda can be opened (no call into it).
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err(Error::NoDevice(
            "the CUDA driver library (libcuda) could not be loaded".into(),
        ));
    }
    // cudarc panics where the driver library lacks a symbol it needs (an old
    // driver): an error here, not a panic.
    match std::panic::catch_unwind(|| CudaContext::new(0)) {
        Ok(Ok(ctx)) => Ok(ctx),
        Ok(Err(e)) => Err(Error::NoDevice(Error::from(e).to_string())),
        Err(_) => Err(Error::NoDevice(
            "the CUDA driver library could not be used (too old?)".into(),
        )),
    }
}

impl CudaBackend {
    /// Opens device 0 with the default [`Options`].
    pub fn new() -> Result<Self> {
        Self::with_options(Options::default())
    }

    /// Opens device 0 and loads the kernels with `opts`.
    pub fn with_options(opts: Options) -> Result<Self> {
        let ctx = open_device()?;
        // One stream per backend; graphs are captured on it, so cudarc's
        // cross-stream event tracking (which records events on every use)
        // stays off.
        // SAFETY: every buffer of this backend is used on `stream` only.
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx.new_stream()?;
        let attn = PagedPrefill::with_options(&ctx, opts)?;
        let name = ctx.name().unwrap_or_else(|_| "unknown GPU".into());
        let sms = ctx
            .attribute(
                cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
            )
            .unwrap_or(0);
        let l2 = ctx
            .attribute(cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)
            .unwrap_or(0);
        let device = format!("{name} ({sms} SMs, {} MB L2)", l2 >> 20);
        Ok(CudaBackend {
            stream,
            attn,
            device,
        })
    }

    /// The loaded kernels.
    pub fn kernel(&self) -> &PagedPrefill {
        &self.attn
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

    /// The GPU, for reports: name, SMs and L2 size.
    pub fn device(&self) -> &str {
        &self.device
    }

    /// Computes a host call on the GPU: validates it on the host, uploads it,
    /// launches the fast kernel in checked mode and copies the output back.
    pub fn attention(&self, p: &HostProblem<'_>) -> Result<Output> {
        validate(p)?;
        let mut bufs = DeviceBuffers::upload(&self.attn, &self.stream, p)?;
        bufs.with_views(|v, out, lse, ws| self.attn.launch_checked(&self.stream, v, out, lse, ws))?;
        bufs.download(&self.stream)
    }

    /// Output of the plain fp32 reference kernel (independent of the fast
    /// kernel; slow), for checking calls too large for the CPU.
    pub fn reference(&self, p: &HostProblem<'_>) -> Result<Output> {
        validate(p)?;
        let mut bufs = DeviceBuffers::upload(&self.attn, &self.stream, p)?;
        bufs.poison(&self.stream)?;
        bufs.with_views(|v, out, lse, _| self.attn.launch_reference(&self.stream, v, out, lse))?;
        bufs.download(&self.stream)
    }
}

/// A call's inputs in device memory, owned.
pub type DeviceInputs = Problem<CudaSlice<bf16>, CudaSlice<i32>>;

/// A call's buffers on the device, owned: its inputs (reached through
/// `Deref`, so `bufs.kv_indices` is the device copy of the page ids), its
/// outputs and a workspace for the stream they were uploaded with.
///
/// Each allocation holds at least one element (the driver refuses empty
/// allocations); [`DeviceBuffers::with_views`] hands the kernels views of the
/// call's exact lengths.
pub struct DeviceBuffers {
    /// The inputs (allocations of at least one element each).
    pub inputs: DeviceInputs,
    /// `[total_q, 24, 128]` bf16 output.
    pub out: CudaSlice<bf16>,
    /// `[total_q, 24]` f32 base-2 log-sum-exp.
    pub lse: CudaSlice<f32>,
    /// The workspace of calls on the stream the buffers were uploaded with.
    pub workspace: Workspace,
}

impl std::ops::Deref for DeviceBuffers {
    type Target = DeviceInputs;
    fn deref(&self) -> &DeviceInputs {
        &self.inputs
    }
}

impl std::ops::DerefMut for DeviceBuffers {
    fn deref_mut(&mut self) -> &mut DeviceInputs {
        &mut self.inputs
    }
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

/// Sets every byte of a device buffer (async on `stream`).
fn fill_bytes<T, B: DevicePtrMut<T>>(stream: &CudaStream, buf: &mut B, byte: u8) -> Result<()> {
    let bytes = buf.num_bytes();
    if bytes == 0 {
        return Ok(());
    }
    // The raw memset needs the context current on this thread.
    stream.context().bind_to_thread()?;
    let (ptr, _g) = buf.device_ptr_mut(stream);
    // SAFETY: `bytes` bytes at `ptr` belong to `buf`.
    unsafe { cudarc::driver::result::memset_d8_async(ptr, byte, bytes, stream.cu_stream()) }?;
    Ok(())
}

impl DeviceBuffers {
    /// Uploads a host call and allocates its outputs and a workspace for
    /// `attn` on `stream`. The shapes are checked first
    /// ([`Problem::check_shapes`]; index contents are not), and a call whose
    /// buffers exceed the device's free memory is refused with
    /// [`Error::InsufficientMemory`] before anything is allocated.
    pub fn upload(
        attn: &PagedPrefill,
        stream: &Arc<CudaStream>,
        p: &HostProblem<'_>,
    ) -> Result<Self> {
        p.check_shapes()?;
        Self::check_fits(attn, stream, &p.dims)?;
        Ok(DeviceBuffers {
            inputs: Problem {
                dims: p.dims,
                q: upload(stream, p.q)?,
                k_cache: upload(stream, p.k_cache)?,
                v_cache: upload(stream, p.v_cache)?,
                qo_indptr: upload(stream, p.qo_indptr)?,
                kv_indptr: upload(stream, p.kv_indptr)?,
                kv_indices: upload(stream, p.kv_indices)?,
                sm_scale: p.sm_scale,
            },
            out: stream.alloc_zeros::<bf16>(p.dims.q_elems().max(1))?,
            lse: stream.alloc_zeros::<f32>(p.dims.lse_elems().max(1))?,
            workspace: attn.workspace(stream)?,
        })
    }

    /// Whether the buffers of a call of these sizes (inputs, outputs and a
    /// workspace) fit in the device's free memory:
    /// [`Error::InsufficientMemory`] if not. Allocates nothing.
    pub fn check_fits(
        attn: &PagedPrefill,
        stream: &Arc<CudaStream>,
        dims: &crate::problem::Dims,
    ) -> Result<()> {
        dims.check()?;
        let needed = dims.input_bytes() + dims.output_bytes() + attn.workspace_bytes();
        let (free, _total) = stream.context().mem_get_info()?;
        if needed > free as u64 {
            return Err(Error::InsufficientMemory {
                what: "device",
                needed,
                available: free as u64,
            });
        }
        Ok(())
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
        let d = self.inputs.dims;
        let i = &self.inputs;
        let (q, k, v) = (
            i.q.slice(0..d.q_elems()),
            i.k_cache.slice(0..d.kv_elems()),
            i.v_cache.slice(0..d.kv_elems()),
        );
        let (qo, kvp, idx) = (
            i.qo_indptr.slice(0..d.indptr_len()),
            i.kv_indptr.slice(0..d.indptr_len()),
            i.kv_indices.slice(0..d.num_kv_indices),
        );
        let views = DeviceProblem {
            dims: d,
            q: &q,
            k_cache: &k,
            v_cache: &v,
            qo_indptr: &qo,
            kv_indptr: &kvp,
            kv_indices: &idx,
            sm_scale: i.sm_scale,
        };
        let mut out = self.out.slice_mut(0..d.q_elems());
        let mut lse = self.lse.slice_mut(0..d.lse_elems());
        f(&views, &mut out, &mut lse, &mut self.workspace)
    }

    /// Fills the outputs with NaN bytes, so that an unwritten element shows.
    pub fn poison(&mut self, stream: &CudaStream) -> Result<()> {
        fill_bytes(stream, &mut self.out, 0xff)?;
        fill_bytes(stream, &mut self.lse, 0xff)?;
        Ok(())
    }

    /// Copies the outputs back (synchronises).
    pub fn download(&self, stream: &Arc<CudaStream>) -> Result<Output> {
        let d = self.inputs.dims;
        let out = stream.clone_dtoh(&self.out.slice(0..d.q_elems()))?;
        let lse = stream.clone_dtoh(&self.lse.slice(0..d.lse_elems()))?;
        stream.synchronize()?;
        Ok(Output { out, lse })
    }
}
