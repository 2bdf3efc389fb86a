//! The public GPU API: [`PagedPrefill`] validates a call on device buffers and
//! launches the attention kernel on a stream. One launch per call, no host
//! synchronisation and no device-to-host copy in [`PagedPrefill::launch`], so a
//! call can be captured in a CUDA graph and replayed with new buffer contents.

use std::sync::{Arc, Mutex};

use cudarc::driver::{
    sys, CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtr, DevicePtrMut, LaunchConfig,
    PushKernelArg, SyncOnDrop,
};
use cudarc::nvrtc::Ptx;
use half::bf16;

use super::ffi::{self, Params};
use crate::error::{Error, Result};
use crate::problem::{check_len, check_shapes, Dims, InputLens};
use crate::schedule::{self, HostPlan, TileConfig};

/// Inputs of one call, in device memory.
pub struct DeviceProblem<'a, Q, KV, I>
where
    Q: DevicePtr<bf16>,
    KV: DevicePtr<bf16>,
    I: DevicePtr<i32>,
{
    pub dims: Dims,
    /// `[total_q, 24, 128]`
    pub q: &'a Q,
    /// `[num_pages, 1, 4, 128]`
    pub k_cache: &'a KV,
    /// `[num_pages, 1, 4, 128]`
    pub v_cache: &'a KV,
    /// `[batch + 1]`
    pub qo_indptr: &'a I,
    /// `[batch + 1]`
    pub kv_indptr: &'a I,
    /// `[num_kv_indices]`
    pub kv_indices: &'a I,
    pub sm_scale: f32,
}

/// The Hopper attention kernel, loaded into a context.
///
/// `Send + Sync`: launches only read `self` (the error flag is written by the
/// kernel with atomics, and checked launches serialise on a mutex), so one
/// instance may launch on several streams from several threads.
pub struct PagedPrefill {
    ctx: Arc<CudaContext>,
    kernels: Vec<(TileConfig, Kernel)>,
    /// Forced tile configuration (None: [`TileConfig::choose`] per call).
    force: Option<TileConfig>,
    reference: CudaFunction,
    /// Device-side error flag (ErrorBits), OR-ed by every launch.
    error_flag: CudaSlice<i32>,
    checked: Mutex<()>,
}

/// One loaded entry point.
struct Kernel {
    func: CudaFunction,
    smem_bytes: u32,
    threads: u32,
    /// The grid's cap: the CTAs resident on the whole GPU at once for a
    /// persistent kernel, none (u32::MAX) for one tile per CTA.
    resident_ctas: u32,
}

/// A device buffer's address range, for alignment and aliasing checks.
#[derive(Clone, Copy)]
struct Span {
    name: &'static str,
    start: u64,
    bytes: u64,
}

impl Span {
    fn overlaps(&self, o: &Span) -> bool {
        self.bytes > 0
            && o.bytes > 0
            && self.start < o.start + o.bytes
            && o.start < self.start + self.bytes
    }
}

fn check_align(s: &Span, align: u64) -> Result<()> {
    if s.bytes > 0 && s.start % align != 0 {
        return Err(Error::Misaligned {
            name: s.name,
            addr: s.start,
            align,
        });
    }
    Ok(())
}

impl PagedPrefill {
    /// Loads the kernels into `ctx`. Fails with a typed error on a GPU that is
    /// not Hopper (sm_90) or when the crate was built without kernels.
    pub fn new(ctx: &Arc<CudaContext>) -> Result<Self> {
        let (Some(attn_cubin), Some(ref_cubin)) = (ffi::ATTENTION_CUBIN, ffi::REFERENCE_CUBIN)
        else {
            return Err(Error::BackendUnavailable(
                "cuda".into(),
                "this build has no GPU kernels (PAGEDATTN_NO_KERNELS was set)".into(),
            ));
        };
        let (major, minor) = ctx.compute_capability()?;
        if (major, minor) != (9, 0) {
            let name = ctx.name().unwrap_or_default();
            return Err(Error::UnsupportedDevice(format!(
                "{name} is sm_{major}{minor}; the kernels are built for Hopper sm_90a"
            )));
        }
        // Development aid for kernel experiments: a cubin built from the same
        // kernels/ sources (same entry points and Params) replaces the embedded one.
        let attn_cubin =
            match std::env::var_os("PAGEDATTN_ATTENTION_CUBIN").filter(|p| !p.is_empty()) {
                Some(path) => std::fs::read(&path).map_err(|e| {
                    Error::BackendUnavailable(
                        "cuda".into(),
                        format!("PAGEDATTN_ATTENTION_CUBIN={}: {e}", path.to_string_lossy()),
                    )
                })?,
                None => attn_cubin.to_vec(),
            };
        let module = ctx.load_module(Ptx::from_binary(attn_cubin))?;
        let stream = ctx.default_stream();
        let sms = ctx
            .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?
            as u32;
        // Development aid: PAGEDATTN_PERSISTENT=0 launches one CTA per tile
        // (the kernel then runs one round per CTA), for A/B measurements.
        let one_tile_per_cta = std::env::var("PAGEDATTN_PERSISTENT").as_deref() == Ok("0");
        let mut kernels = Vec::new();
        for config in [TileConfig::M128, TileConfig::M64] {
            let (name, smem_symbol, persistent_symbol, threads) = ffi::entry(config);
            let func = module.load_function(name)?;
            let read_i32 = |symbol: &str| -> Result<i32> {
                let global = module.get_global(symbol, &stream)?;
                let bytes: Vec<u8> = stream.clone_dtoh(&global)?;
                let arr: [u8; 4] =
                    bytes
                        .get(..4)
                        .and_then(|b| b.try_into().ok())
                        .ok_or_else(|| {
                            Error::Driver(format!("kernel symbol {symbol} has the wrong size"))
                        })?;
                Ok(i32::from_le_bytes(arr))
            };
            let smem_bytes = read_i32(smem_symbol)? as u32;
            let persistent = read_i32(persistent_symbol)? != 0;
            func.set_attribute(
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                smem_bytes as i32,
            )?;
            let per_sm = func.occupancy_max_active_blocks_per_multiprocessor(
                threads,
                smem_bytes as usize,
                None,
            )?;
            if per_sm == 0 {
                return Err(Error::UnsupportedDevice(format!(
                    "{name} does not fit on an SM ({smem_bytes} bytes of shared memory, {threads} threads)"
                )));
            }
            kernels.push((
                config,
                Kernel {
                    func,
                    smem_bytes,
                    threads,
                    resident_ctas: if persistent && !one_tile_per_cta {
                        per_sm * sms
                    } else {
                        u32::MAX
                    },
                },
            ));
        }
        let ref_module = ctx.load_module(Ptx::from_binary(ref_cubin.to_vec()))?;
        let reference = ref_module.load_function(ffi::REFERENCE_KERNEL)?;
        let error_flag = stream.alloc_zeros::<i32>(1)?;
        stream.synchronize()?;
        Ok(PagedPrefill {
            ctx: ctx.clone(),
            kernels,
            force: None,
            reference,
            error_flag,
            checked: Mutex::new(()),
        })
    }

    /// The context the kernels live in.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// Uses `config` for every call instead of choosing per call (for
    /// benchmarks and tests of each configuration).
    pub fn force_config(&mut self, config: Option<TileConfig>) {
        self.force = config;
    }

    /// The tile configuration a call of these dimensions uses.
    pub fn config_for(&self, dims: &Dims) -> TileConfig {
        self.force
            .unwrap_or_else(|| TileConfig::choose(dims.total_q, dims.batch))
    }

    fn kernel(&self, config: TileConfig) -> &Kernel {
        // Both configurations are loaded in `new`.
        &self
            .kernels
            .iter()
            .find(|(c, _)| *c == config)
            .unwrap_or(&self.kernels[0])
            .1
    }

    /// Validates everything that can be checked without reading device memory
    /// (geometry, lengths, `sm_scale`, alignment, aliasing) and builds the
    /// kernel parameters. Index contents are checked by the kernel itself.
    ///
    /// Also returns cudarc's use guards of the buffers: the caller drops them
    /// after the launch, so that, where cudarc tracks cross-stream use with
    /// events, those events are recorded after the kernel, not before it.
    fn params<'a, Q, KV, I, O, L>(
        &'a self,
        config: TileConfig,
        stream: &'a CudaStream,
        p: &'a DeviceProblem<'_, Q, KV, I>,
        out: &'a mut O,
        lse: &'a mut L,
    ) -> Result<(Params, Vec<SyncOnDrop<'a>>)>
    where
        Q: DevicePtr<bf16>,
        KV: DevicePtr<bf16>,
        I: DevicePtr<i32>,
        O: DevicePtrMut<bf16>,
        L: DevicePtrMut<f32>,
    {
        let d = &p.dims;
        let lens = InputLens {
            q: p.q.len(),
            k_cache: p.k_cache.len(),
            v_cache: p.v_cache.len(),
            kv_indices: p.kv_indices.len(),
        };
        check_shapes(d, p.sm_scale, lens)?;
        check_len("qo_indptr", d.indptr_len(), p.qo_indptr.len())?;
        check_len("kv_indptr", d.indptr_len(), p.kv_indptr.len())?;
        check_len("output", d.q_elems(), out.len())?;
        check_len("lse", d.lse_elems(), lse.len())?;
        let tiles = schedule::tiles_per_head(d.total_q, d.batch, config.block_m());
        let grid = tiles as u128 * crate::problem::NUM_KV_HEADS as u128;
        if grid > i32::MAX as u128 {
            return Err(Error::TooLarge {
                what: "grid (tiles)",
                value: grid,
                limit: i32::MAX as u128,
            });
        }

        let span = |name, ptr: u64, elems: usize, size: usize| Span {
            name,
            start: ptr,
            bytes: (elems * size) as u64,
        };
        let (q_ptr, g1) = p.q.device_ptr(stream);
        let (k_ptr, g2) = p.k_cache.device_ptr(stream);
        let (v_ptr, g3) = p.v_cache.device_ptr(stream);
        let (qo_ptr, g4) = p.qo_indptr.device_ptr(stream);
        let (kvp_ptr, g5) = p.kv_indptr.device_ptr(stream);
        let (idx_ptr, g6) = p.kv_indices.device_ptr(stream);
        let (out_len, lse_len) = (out.len(), lse.len());
        let (out_ptr, g7) = out.device_ptr_mut(stream);
        let (lse_ptr, g8) = lse.device_ptr_mut(stream);
        let inputs = [
            span("q", q_ptr, p.q.len(), 2),
            span("k_cache", k_ptr, p.k_cache.len(), 2),
            span("v_cache", v_ptr, p.v_cache.len(), 2),
            span("qo_indptr", qo_ptr, p.qo_indptr.len(), 4),
            span("kv_indptr", kvp_ptr, p.kv_indptr.len(), 4),
            span("kv_indices", idx_ptr, p.kv_indices.len(), 4),
        ];
        let outputs = [
            span("output", out_ptr, out_len, 2),
            span("lse", lse_ptr, lse_len, 4),
        ];
        // 16-byte vector loads and stores of rows; 4-byte index and lse accesses.
        for s in inputs.iter().take(3).chain(outputs.iter().take(1)) {
            check_align(s, 16)?;
        }
        for s in inputs.iter().skip(3).chain(outputs.iter().skip(1)) {
            check_align(s, 4)?;
        }
        for o in &outputs {
            for other in inputs.iter().chain(outputs.iter()) {
                if o.name != other.name && o.overlaps(other) {
                    return Err(Error::Aliasing {
                        a: o.name,
                        b: other.name,
                    });
                }
            }
        }
        let (flag_ptr, g9) = self.error_flag.device_ptr(stream);
        let guards = vec![g1, g2, g3, g4, g5, g6, g7, g8, g9];
        let params = Params {
            q: q_ptr,
            k_cache: k_ptr,
            v_cache: v_ptr,
            qo_indptr: qo_ptr,
            kv_indptr: kvp_ptr,
            kv_indices: idx_ptr,
            out: out_ptr,
            lse: lse_ptr,
            error_flag: flag_ptr,
            total_q: d.total_q as i64,
            num_pages: d.num_pages as i64,
            batch: d.batch as i32,
            num_kv_indices: d.num_kv_indices as i32,
            tiles_per_head: tiles as i32,
            sm_scale: p.sm_scale,
            sm_scale_log2: p.sm_scale * std::f32::consts::LOG2_E,
        };
        Ok((params, guards))
    }

    /// Validates the call and launches the kernel on `stream`: one launch, no
    /// synchronisation, graph-capturable. Index contents in device memory are
    /// not read by the host: a bad page id or indptr is never dereferenced by
    /// the kernel (the key or sequence is skipped) and raises the device error
    /// flag, which [`PagedPrefill::launch_checked`] or
    /// [`PagedPrefill::take_device_errors`] turn into a typed error.
    pub fn launch<Q, KV, I, O, L>(
        &self,
        stream: &CudaStream,
        p: &DeviceProblem<'_, Q, KV, I>,
        out: &mut O,
        lse: &mut L,
    ) -> Result<()>
    where
        Q: DevicePtr<bf16>,
        KV: DevicePtr<bf16>,
        I: DevicePtr<i32>,
        O: DevicePtrMut<bf16>,
        L: DevicePtrMut<f32>,
    {
        self.launch_with(self.config_for(&p.dims), stream, p, out, lse)
    }

    /// Like [`PagedPrefill::launch`], with the tile configuration of a plan
    /// made on the host ([`HostPlan::new`], which validated the indptr and
    /// page-id contents there). `Err(Error::PlanMismatch)` if the plan was
    /// made for other dimensions.
    pub fn launch_planned<Q, KV, I, O, L>(
        &self,
        plan: &HostPlan,
        stream: &CudaStream,
        p: &DeviceProblem<'_, Q, KV, I>,
        out: &mut O,
        lse: &mut L,
    ) -> Result<()>
    where
        Q: DevicePtr<bf16>,
        KV: DevicePtr<bf16>,
        I: DevicePtr<i32>,
        O: DevicePtrMut<bf16>,
        L: DevicePtrMut<f32>,
    {
        if plan.dims != p.dims {
            return Err(Error::PlanMismatch(format!(
                "plan for {:?}, call with {:?}",
                plan.dims, p.dims
            )));
        }
        self.launch_with(self.force.unwrap_or(plan.config), stream, p, out, lse)
    }

    fn launch_with<Q, KV, I, O, L>(
        &self,
        config: TileConfig,
        stream: &CudaStream,
        p: &DeviceProblem<'_, Q, KV, I>,
        out: &mut O,
        lse: &mut L,
    ) -> Result<()>
    where
        Q: DevicePtr<bf16>,
        KV: DevicePtr<bf16>,
        I: DevicePtr<i32>,
        O: DevicePtrMut<bf16>,
        L: DevicePtrMut<f32>,
    {
        let (params, _guards) = self.params(config, stream, p, out, lse)?;
        let tiles = params.tiles_per_head as u32 * crate::problem::NUM_KV_HEADS as u32;
        if tiles == 0 {
            return Ok(()); // no sequences and no rows: nothing to compute
        }
        let k = self.kernel(config);
        // One CTA per tile or, persistent, at most one wave of resident CTAs,
        // each walking its share of the tiles (kernels/attn/tile_scheduler.cuh).
        // The size depends on the shapes only, so a captured graph stays
        // valid for new indptr contents.
        let grid = tiles.min(k.resident_ctas);
        let cfg = LaunchConfig {
            grid_dim: (grid, 1, 1),
            block_dim: (k.threads, 1, 1),
            shared_mem_bytes: k.smem_bytes,
        };
        let mut b = stream.launch_builder(&k.func);
        b.arg(&params);
        // SAFETY: params were validated above: every buffer has the length its
        // shape needs, and the kernel bounds-checks all index contents.
        unsafe { b.launch(cfg) }?;
        Ok(())
    }

    /// Like [`PagedPrefill::launch`], then waits for the result and returns
    /// `Err(Error::DeviceIndexData)` if the kernel met bad index data. Not
    /// capturable (it synchronises `stream`).
    pub fn launch_checked<Q, KV, I, O, L>(
        &self,
        stream: &Arc<CudaStream>,
        p: &DeviceProblem<'_, Q, KV, I>,
        out: &mut O,
        lse: &mut L,
    ) -> Result<()>
    where
        Q: DevicePtr<bf16>,
        KV: DevicePtr<bf16>,
        I: DevicePtr<i32>,
        O: DevicePtrMut<bf16>,
        L: DevicePtrMut<f32>,
    {
        let _guard = self.checked.lock().unwrap_or_else(|e| e.into_inner());
        self.reset_flag(stream)?;
        self.launch(stream, p, out, lse)?;
        flag_result(self.read_flag(stream)?)
    }

    /// Reads and clears the device error flag accumulated by unchecked
    /// launches (synchronises `stream`).
    pub fn take_device_errors(&self, stream: &Arc<CudaStream>) -> Result<()> {
        let _guard = self.checked.lock().unwrap_or_else(|e| e.into_inner());
        let bits = self.read_flag(stream)?;
        self.reset_flag(stream)?;
        stream.synchronize()?;
        flag_result(bits)
    }

    fn reset_flag(&self, stream: &CudaStream) -> Result<()> {
        // The raw memset needs the context current on this thread.
        self.ctx.bind_to_thread()?;
        let (ptr, _g) = self.error_flag.device_ptr(stream);
        // SAFETY: 4 bytes owned by self.error_flag.
        unsafe { cudarc::driver::result::memset_d8_async(ptr, 0, 4, stream.cu_stream()) }?;
        Ok(())
    }

    fn read_flag(&self, stream: &Arc<CudaStream>) -> Result<i32> {
        let mut host = [0i32; 1];
        stream.memcpy_dtoh(&self.error_flag, &mut host)?;
        stream.synchronize()?;
        Ok(host[0])
    }

    /// Launches the plain fp32 reference kernel (for checking; slow). Inputs
    /// must be valid (validated on the host beforehand).
    pub fn launch_reference<Q, KV, I, O, L>(
        &self,
        stream: &CudaStream,
        p: &DeviceProblem<'_, Q, KV, I>,
        out: &mut O,
        lse: &mut L,
    ) -> Result<()>
    where
        Q: DevicePtr<bf16>,
        KV: DevicePtr<bf16>,
        I: DevicePtr<i32>,
        O: DevicePtrMut<bf16>,
        L: DevicePtrMut<f32>,
    {
        let (params, _guards) = self.params(self.config_for(&p.dims), stream, p, out, lse)?;
        let warps = p.dims.total_q as u64 * crate::problem::NUM_QO_HEADS as u64;
        if warps == 0 || p.dims.batch == 0 {
            return Ok(());
        }
        let blocks = warps.div_ceil(8);
        let cfg = LaunchConfig {
            grid_dim: (blocks as u32, 1, 1),
            block_dim: (256, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut b = stream.launch_builder(&self.reference);
        b.arg(&params.q)
            .arg(&params.k_cache)
            .arg(&params.v_cache)
            .arg(&params.qo_indptr)
            .arg(&params.kv_indptr)
            .arg(&params.kv_indices)
            .arg(&params.out)
            .arg(&params.lse)
            .arg(&params.total_q)
            .arg(&params.batch)
            .arg(&params.num_pages)
            .arg(&params.sm_scale);
        // SAFETY: as for `launch`; the reference kernel trusts the indices,
        // which the caller validated on the host.
        unsafe { b.launch(cfg) }?;
        Ok(())
    }
}

/// The device error flag's bits as the call's result.
fn flag_result(bits: i32) -> Result<()> {
    match bits {
        0 => Ok(()),
        bits => Err(Error::DeviceIndexData(ffi::describe_error_bits(bits))),
    }
}
