//! The public GPU API: [`PagedPrefill`] validates a call on device buffers and
//! launches the attention kernel on a stream. One launch per call, no host
//! synchronisation and no device-to-host copy in [`PagedPrefill::launch`], so a
//! call can be captured in a CUDA graph and replayed with new buffer contents.
//!
//! The kernel is persistent: one wave of CTAs walks a list of work units that
//! it derives on the device from the indptrs; a long tile may be split into
//! key-range chunks whose partial results are merged inside the same launch.
//! That needs a [`Workspace`] (counters, merge semaphores, partial outputs),
//! which the kernel leaves as it found it (all counters zero) at the end of
//! every call.

use std::sync::Arc;

use cudarc::driver::{
    sys, CudaContext, CudaFunction, CudaSlice, CudaStream, CudaView, CudaViewMut, DevicePtr,
    DevicePtrMut, LaunchConfig, PushKernelArg, SyncOnDrop,
};
use cudarc::nvrtc::Ptx;
use half::bf16;

use super::ffi::{self, Params};
use crate::error::{Error, Result};
use crate::problem::{
    check_len, check_shapes, Dims, InputLens, Problem, NUM_KV_HEADS, NUM_QO_HEADS,
};
use crate::schedule::{self, HostPlan, SplitPolicy, TileConfig};
use crate::units;

/// Inputs of one call, in device memory: cudarc views of the call's exact
/// lengths (see [`Problem`] for the shapes).
pub type DeviceProblem<'a> = Problem<&'a CudaView<'a, bf16>, &'a CudaView<'a, i32>>;

/// A call described by raw device addresses (for bindings that hold buffers
/// cudarc does not own, such as torch tensors). Lengths come from `dims`.
#[derive(Clone, Copy, Debug)]
pub struct RawCall {
    /// The call's sizes; every buffer has exactly the length its shape needs.
    pub dims: Dims,
    /// Device address of `q`, `[total_q, 24, 128]` bf16.
    pub q: u64,
    /// Device address of `k_cache`, `[num_pages, 1, 4, 128]` bf16.
    pub k_cache: u64,
    /// Device address of `v_cache`, `[num_pages, 1, 4, 128]` bf16.
    pub v_cache: u64,
    /// Device address of `qo_indptr`, `[batch + 1]` int32.
    pub qo_indptr: u64,
    /// Device address of `kv_indptr`, `[batch + 1]` int32.
    pub kv_indptr: u64,
    /// Device address of `kv_indices`, `[num_kv_indices]` int32.
    pub kv_indices: u64,
    /// Device address of `output`, `[total_q, 24, 128]` bf16.
    pub out: u64,
    /// Device address of `lse`, `[total_q, 24]` f32.
    pub lse: u64,
    /// Softmax scale of the logits (natural-log domain), finite.
    pub sm_scale: f32,
}

/// How [`PagedPrefill`] runs; the defaults are what production calls want.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Forces one tile configuration for every call (`None`: chosen per call).
    pub tile: Option<TileConfig>,
    /// When tiles are split into key-range chunks merged in the kernel.
    pub split: SplitPolicy,
    /// A cubin built from the same `kernels/` sources (same entry points and
    /// parameters) used instead of the embedded one: kernel experiments only.
    pub attention_cubin: Option<Vec<u8>>,
    /// One CTA per work unit instead of a persistent grid (experiments only).
    pub one_cta_per_unit: bool,
}

/// A call planned on the host ([`PagedPrefill::plan`]), FlashInfer's
/// `plan()` / `run()` split: validated there (indptr and page-id contents,
/// typed errors naming the bad entry), its tile configuration chosen from
/// the real sequence lengths, and the work-unit plan that the kernel would
/// otherwise build from the indptrs at the start of every CTA made on the
/// host and uploaded once, so that [`PagedPrefill::launch_planned`] skips
/// that step (1-3 us on batches of a few to hundreds of sequences).
///
/// The plan holds the indptr *contents*: launch it with the indptrs it was
/// made from (the kernel takes the sequences' ranges from the plan; those
/// were checked against the call's dimensions, so a plan launched with other
/// contents still reads and writes only the call's buffers, and the kernel
/// still checks every page id it reads). Keep it alive for as long as a
/// graph that captured a launch with it may replay; to replay with new
/// sequence lengths, capture with [`PagedPrefill::launch`], which plans on
/// the device.
pub struct DevicePlan {
    host: HostPlan,
    config: TileConfig,
    ctx: Arc<CudaContext>,
    /// The grid of the shape-only launch ([`units::launch_grid`]) the plan
    /// was made for.
    shape_grid: u32,
    /// The launch this plan takes ([`units::planned_launch`]): its grid and
    /// whether it is direct (a persistent call whose plan splits nothing
    /// and whose tiles fit the resident CTAs launches direct).
    grid: u32,
    direct: bool,
    partial_slots: i32,
    /// The plan image in device memory and its address; `None` where the
    /// kernel takes no plan (calls with a unit per CTA and nothing to split,
    /// batches above [`units::plan_max_batch`]) or takes it inline.
    image: Option<(CudaSlice<i32>, u64)>,
    /// The plan of a batch of up to [`units::INLINE_PLAN_MAX_BATCH`]
    /// sequences, passed in the kernel's parameters (direct calls too).
    inline: Option<Box<[i32; units::INLINE_PLAN_INTS]>>,
}

impl DevicePlan {
    /// The plan applies to calls with its query rows, sequences and page-id
    /// count (the page count does not enter it: page ids are checked on
    /// the device).
    fn check_dims(&self, dims: &Dims) -> Result<()> {
        let h = &self.host.dims;
        if (h.total_q, h.batch, h.num_kv_indices) != (dims.total_q, dims.batch, dims.num_kv_indices)
        {
            return Err(Error::PlanMismatch(format!(
                "plan for {h:?}, call with {dims:?}"
            )));
        }
        Ok(())
    }

    /// The host-side validation and tile choice.
    pub fn host(&self) -> &HostPlan {
        &self.host
    }
    /// The tile configuration the launch uses.
    pub fn config(&self) -> TileConfig {
        self.config
    }
    /// Whether the kernel copies this plan instead of building one (false
    /// where it needs none).
    pub fn has_image(&self) -> bool {
        self.image.is_some() || self.inline.is_some()
    }
}

/// How one call launches ([`PagedPrefill::launch_info`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchInfo {
    /// The tile configuration.
    pub config: TileConfig,
    /// CTAs in the grid.
    pub grid: u32,
    /// The direct entry point: a unit per CTA at most and nothing to split,
    /// so no plan building, tickets or merge.
    pub direct: bool,
    /// The kernel copies a plan made on the host; otherwise it builds the
    /// plan itself (or, when direct, takes the tiles in a fixed order).
    pub host_plan: bool,
}

impl std::fmt::Display for LaunchInfo {
    /// `m128 direct`, `m64 direct host plan`, `m64 host plan` or `m128 device plan`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let how = match (self.direct, self.host_plan) {
            (true, false) => "direct",
            (true, true) => "direct host plan",
            (false, true) => "host plan",
            (false, false) => "device plan",
        };
        write!(f, "{} {how}", self.config.name())
    }
}

/// The Hopper attention kernel, loaded into a context.
///
/// `Send + Sync`: launches only read `self`; everything a launch writes
/// besides its outputs lives in its [`Workspace`].
pub struct PagedPrefill {
    ctx: Arc<CudaContext>,
    kernels: Vec<(TileConfig, Kernel)>,
    opts: Options,
    reference: CudaFunction,
    /// Workspace geometry, the same for every configuration.
    ws_layout: WorkspaceLayout,
}

/// One loaded configuration: its entry points.
struct Kernel {
    func: CudaFunction,
    /// The entry point for direct calls (`ffi::Entry::direct_function`).
    direct_func: CudaFunction,
    smem_bytes: u32,
    threads: u32,
    /// CTAs resident on the whole GPU at once: the persistent grid.
    resident_ctas: u32,
}

/// Byte offsets of a workspace's parts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct WorkspaceLayout {
    /// Merge slots: partial outputs of split tiles (one per chunk).
    slots_rows: u64,
    sem_offset: u64,
    lse_offset: u64,
    o_offset: u64,
    bytes: u64,
}

/// Ints at the start of a workspace (`WsCounter` in kernels/attn/params.cuh,
/// `kWsCounterInts`): the counters and the plan memo.
const WS_COUNTERS: u64 = 128;
/// Merge semaphores per slot of a configuration: one per consumer
/// warpgroup, at least two (`kSemsPerSlot` of the kernel traits).
fn sems_per_slot(config: TileConfig) -> u64 {
    config.consumer_warpgroups().max(2) as u64
}

impl WorkspaceLayout {
    /// The layout for configurations whose persistent grids have the given
    /// CTAs: MERGE_SLOTS_PER_CTA merge slots per CTA of each grid, in rows of
    /// partial output, and each configuration's slots (`partial_slots`: the
    /// rows over its tile's) times its semaphores per slot. M192 takes
    /// the slots those rows give its 192-row tiles (2.67 per CTA on an H200)
    /// rather than every workspace growing by half for it.
    fn for_grids(grids: impl Iterator<Item = (TileConfig, u64)> + Clone) -> Self {
        let slots_rows = grids
            .clone()
            .filter(|(c, _)| *c != TileConfig::M192)
            .map(|(c, ctas)| units::MERGE_SLOTS_PER_CTA * ctas * c.block_m() as u64)
            .max()
            .unwrap_or(0);
        let sems = grids
            .map(|(c, _)| slots_rows / c.block_m() as u64 * sems_per_slot(c))
            .max()
            .unwrap_or(0);
        WorkspaceLayout::new(sems, slots_rows)
    }

    /// Enough for `slots_rows` rows of partial output (fp32 O, and the lse
    /// of each row as its 4 threads hold it) and `sems` semaphores.
    fn new(sems: u64, slots_rows: u64) -> Self {
        let align = |x: u64| x.div_ceil(256) * 256;
        let sem_offset = WS_COUNTERS * 4;
        let lse_offset = align(sem_offset + sems * 4);
        let o_offset = align(lse_offset + slots_rows * 4 * 4);
        let bytes = align(o_offset + slots_rows * 128 * 4);
        WorkspaceLayout {
            slots_rows,
            sem_offset,
            lse_offset,
            o_offset,
            bytes,
        }
    }
}

/// Device memory a launch needs besides its inputs and outputs: the error
/// flag, the work-unit counter, merge semaphores and the partial outputs of
/// split tiles (about 35 MB on an H200).
///
/// A workspace is bound to the stream it was made for: calls on that stream
/// are ordered, so they never share it at the same time, and launching with
/// a workspace on another stream is refused (`Error::WorkspaceStream`). Use
/// one workspace per stream. Every counter in it is zero between calls (the
/// kernel resets what it uses; besides them it keeps a memo of the split
/// size its last device-built plan of up to 32 sequences chose, keyed by
/// that call's sequence lengths, so that calls with the same lengths skip
/// the search), so a graph that captured a launch can be
/// replayed any number of times. Make it before capturing (allocation is not
/// capturable).
pub struct Workspace {
    ptr: sys::CUdeviceptr,
    ctx: Arc<CudaContext>,
    stream: usize,
    layout: WorkspaceLayout,
    /// Allocated here (freed on drop), or borrowed from the caller.
    owned: bool,
}

impl Workspace {
    /// Size in bytes.
    pub fn bytes(&self) -> u64 {
        self.layout.bytes
    }
    /// The raw stream this workspace belongs to.
    pub fn stream(&self) -> sys::CUstream {
        self.stream as sys::CUstream
    }
}

impl Drop for Workspace {
    fn drop(&mut self) {
        // SAFETY: `ptr` was allocated by `malloc_sync` in this context and is
        // freed once; the free waits for work that still uses it.
        unsafe {
            if self.owned && self.ctx.bind_to_thread().is_ok() {
                let _ = cudarc::driver::result::free_sync(self.ptr);
            }
        }
    }
}

// SAFETY: the raw stream handle is only compared, never used; the device
// allocation is plain memory of a context that may be used from any thread.
unsafe impl Send for Workspace {}
unsafe impl Sync for Workspace {}

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

/// A device call's lengths checked against its shape, and its raw addresses,
/// with cudarc's use guards: the caller keeps them until after the launch,
/// so that where cudarc tracks cross-stream use with events, those are
/// recorded after the kernel.
fn raw_call<'a>(
    stream: &'a CudaStream,
    p: &'a DeviceProblem<'_>,
    out: &'a mut CudaViewMut<'_, bf16>,
    lse: &'a mut CudaViewMut<'_, f32>,
) -> Result<(RawCall, [SyncOnDrop<'a>; 8])> {
    let lens = InputLens {
        q: p.q.len(),
        k_cache: p.k_cache.len(),
        v_cache: p.v_cache.len(),
        kv_indices: p.kv_indices.len(),
    };
    check_shapes(&p.dims, p.sm_scale, lens)?;
    check_len("qo_indptr", p.dims.indptr_len(), p.qo_indptr.len())?;
    check_len("kv_indptr", p.dims.indptr_len(), p.kv_indptr.len())?;
    check_len("output", p.dims.q_elems(), out.len())?;
    check_len("lse", p.dims.lse_elems(), lse.len())?;
    let (q, g1) = p.q.device_ptr(stream);
    let (k_cache, g2) = p.k_cache.device_ptr(stream);
    let (v_cache, g3) = p.v_cache.device_ptr(stream);
    let (qo_indptr, g4) = p.qo_indptr.device_ptr(stream);
    let (kv_indptr, g5) = p.kv_indptr.device_ptr(stream);
    let (kv_indices, g6) = p.kv_indices.device_ptr(stream);
    let (out, g7) = out.device_ptr_mut(stream);
    let (lse, g8) = lse.device_ptr_mut(stream);
    let call = RawCall {
        dims: p.dims,
        q,
        k_cache,
        v_cache,
        qo_indptr,
        kv_indptr,
        kv_indices,
        out,
        lse,
        sm_scale: p.sm_scale,
    };
    Ok((call, [g1, g2, g3, g4, g5, g6, g7, g8]))
}

/// The geometry and `sm_scale` of a call given by raw addresses (whose
/// buffers have, by the caller's contract, the lengths of its dims).
fn check_raw_shapes(call: &RawCall) -> Result<()> {
    let d = &call.dims;
    check_shapes(
        d,
        call.sm_scale,
        InputLens {
            q: d.q_elems(),
            k_cache: d.kv_elems(),
            v_cache: d.kv_elems(),
            kv_indices: d.num_kv_indices,
        },
    )
}

/// Alignment and aliasing of a call's buffers (and its workspace, if any):
/// 16-byte row loads and stores of q, the caches and the output, 4-byte
/// index and lse accesses; no output overlapping any other buffer.
fn check_addresses(c: &RawCall, workspace: Option<(u64, u64)>) -> Result<()> {
    let d = &c.dims;
    let span = |name, start: u64, elems: usize, size: usize| Span {
        name,
        start,
        bytes: (elems * size) as u64,
    };
    let inputs = [
        span("q", c.q, d.q_elems(), 2),
        span("k_cache", c.k_cache, d.kv_elems(), 2),
        span("v_cache", c.v_cache, d.kv_elems(), 2),
        span("qo_indptr", c.qo_indptr, d.indptr_len(), 4),
        span("kv_indptr", c.kv_indptr, d.indptr_len(), 4),
        span("kv_indices", c.kv_indices, d.num_kv_indices, 4),
    ];
    let (ws_ptr, ws_bytes) = workspace.unwrap_or((0, 0));
    let outputs = [
        span("output", c.out, d.q_elems(), 2),
        span("lse", c.lse, d.lse_elems(), 4),
        span("workspace", ws_ptr, ws_bytes as usize, 1),
    ];
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
    Ok(())
}

impl PagedPrefill {
    /// Loads the kernels into `ctx` with the default [`Options`]. Fails with a
    /// typed error on a GPU that is not Hopper (sm_90) or when the crate was
    /// built without kernels.
    pub fn new(ctx: &Arc<CudaContext>) -> Result<Self> {
        Self::with_options(ctx, Options::default())
    }

    /// Loads the kernels into `ctx`.
    pub fn with_options(ctx: &Arc<CudaContext>, opts: Options) -> Result<Self> {
        let (Some(attn_cubin), Some(ref_cubin)) = (ffi::ATTENTION_CUBIN, ffi::REFERENCE_CUBIN)
        else {
            return Err(Error::BackendUnavailable(
                "cuda".into(),
                super::WITHOUT_KERNELS.into(),
            ));
        };
        let (major, minor) = ctx.compute_capability()?;
        if (major, minor) != (9, 0) {
            let name = ctx.name().unwrap_or_default();
            return Err(Error::UnsupportedDevice(format!(
                "{name} is sm_{major}{minor}; the kernels are built for Hopper sm_90a"
            )));
        }
        let attn_cubin = opts
            .attention_cubin
            .clone()
            .unwrap_or_else(|| attn_cubin.to_vec());
        let module = ctx.load_module(Ptx::from_binary(attn_cubin))?;
        let stream = ctx.default_stream();
        let sms = ctx
            .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?
            as u32;
        let mut kernels = Vec::new();
        for config in TileConfig::ALL {
            let e = ffi::entry(config);
            let func = module.load_function(e.function)?;
            let smem_global = module.get_global(e.smem_symbol, &stream)?;
            let bytes: Vec<u8> = stream.clone_dtoh(&smem_global)?;
            let smem_bytes = bytes
                .get(..4)
                .and_then(|b| <[u8; 4]>::try_from(b).ok())
                .map(u32::from_le_bytes)
                .ok_or_else(|| {
                    Error::KernelMismatch(format!(
                        "kernel symbol {} has the wrong size",
                        e.smem_symbol
                    ))
                })?;
            let direct_func = module.load_function(e.direct_function)?;
            for f in [&func, &direct_func] {
                f.set_attribute(
                    sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    smem_bytes as i32,
                )?;
            }
            let per_sm = func.occupancy_max_active_blocks_per_multiprocessor(
                e.threads,
                smem_bytes as usize,
                None,
            )?;
            if per_sm == 0 {
                return Err(Error::UnsupportedDevice(format!(
                    "{} does not fit on an SM ({smem_bytes} bytes of shared memory, {} threads)",
                    e.function, e.threads
                )));
            }
            kernels.push((
                config,
                Kernel {
                    func,
                    direct_func,
                    smem_bytes,
                    threads: e.threads,
                    resident_ctas: if opts.one_cta_per_unit {
                        u32::MAX
                    } else {
                        per_sm * sms
                    },
                },
            ));
        }
        let ws_layout = WorkspaceLayout::for_grids(
            kernels
                .iter()
                .map(|(c, k)| (*c, k.resident_ctas.min(4 * sms) as u64)),
        );
        let ref_module = ctx.load_module(Ptx::from_binary(ref_cubin.to_vec()))?;
        let reference = ref_module.load_function(ffi::REFERENCE_KERNEL)?;
        stream.synchronize()?;
        Ok(PagedPrefill {
            ctx: ctx.clone(),
            kernels,
            opts,
            reference,
            ws_layout,
        })
    }

    /// The context the kernels live in.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// The options the kernels were loaded with.
    pub fn options(&self) -> &Options {
        &self.opts
    }

    /// Allocates a zeroed workspace for calls on `stream` (synchronous; not
    /// capturable).
    pub fn workspace(&self, stream: &CudaStream) -> Result<Workspace> {
        // SAFETY: `stream` is a live stream of this context.
        unsafe { self.workspace_raw(stream.cu_stream()) }
    }

    /// [`PagedPrefill::workspace`] for a raw stream of this context.
    ///
    /// # Safety
    /// `stream` must be a live stream of this context.
    pub unsafe fn workspace_raw(&self, stream: sys::CUstream) -> Result<Workspace> {
        self.ctx.bind_to_thread()?;
        let bytes = self.ws_layout.bytes as usize;
        let ptr = cudarc::driver::result::malloc_sync(bytes)?;
        let ws = Workspace {
            ptr,
            ctx: self.ctx.clone(),
            stream: stream as usize,
            layout: self.ws_layout,
            owned: true,
        };
        cudarc::driver::result::memset_d8_sync(ptr, 0, bytes)?;
        Ok(ws)
    }

    /// Bytes a workspace needs on this GPU (see [`PagedPrefill::workspace_from_raw`]).
    pub fn workspace_bytes(&self) -> u64 {
        self.ws_layout.bytes
    }

    /// A workspace in memory the caller owns (for bindings whose allocator
    /// works under graph capture, such as torch's): `bytes` at `ptr`, at
    /// least [`PagedPrefill::workspace_bytes`], 256-byte aligned, not freed
    /// by the returned value.
    ///
    /// # Safety
    /// The memory must be device memory of this context, zeroed before the
    /// first launch (later launches leave its counters at zero and their
    /// plan memo, see [`Workspace`]), used only through this
    /// workspace, and outlive every launch that uses it; `stream` must be a
    /// live stream of this context.
    pub unsafe fn workspace_from_raw(
        &self,
        ptr: sys::CUdeviceptr,
        bytes: u64,
        stream: sys::CUstream,
    ) -> Result<Workspace> {
        if bytes < self.ws_layout.bytes {
            return Err(Error::BufferLength {
                name: "workspace",
                expected: self.ws_layout.bytes as usize,
                got: bytes as usize,
            });
        }
        check_align(
            &Span {
                name: "workspace",
                start: ptr,
                bytes,
            },
            256,
        )?;
        Ok(Workspace {
            ptr,
            ctx: self.ctx.clone(),
            stream: stream as usize,
            layout: self.ws_layout,
            owned: false,
        })
    }

    /// How a call of these dimensions launches (with `plan`, as
    /// [`PagedPrefill::launch_planned`] would launch it): for reports and
    /// tests. `None` for a call with nothing to compute (no launch).
    pub fn launch_info(&self, dims: &Dims, plan: Option<&DevicePlan>) -> Option<LaunchInfo> {
        let config = plan.map_or_else(|| self.config_for(dims), |p| p.config);
        let (mut grid, mut direct) = self.launch_shape(config, dims)?;
        if let Some(p) = plan.filter(|p| p.shape_grid == grid) {
            (grid, direct) = (p.grid, p.direct);
        }
        Some(LaunchInfo {
            config,
            grid,
            direct,
            host_plan: plan.is_some_and(DevicePlan::has_image),
        })
    }

    /// The tile configuration a call of these dimensions uses.
    pub fn config_for(&self, dims: &Dims) -> TileConfig {
        self.opts
            .tile
            .unwrap_or_else(|| TileConfig::choose(dims.total_q, dims.num_kv_indices, dims.batch))
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

    /// Validates the call and launches the kernel on `stream`: one launch, no
    /// synchronisation, graph-capturable. Index contents in device memory are
    /// not read by the host: a bad page id or indptr is never dereferenced by
    /// the kernel (the key or sequence is skipped) and raises the workspace's
    /// error flag, which [`PagedPrefill::launch_checked`] or
    /// [`PagedPrefill::take_device_errors`] turn into a typed error.
    pub fn launch(
        &self,
        stream: &CudaStream,
        p: &DeviceProblem<'_>,
        out: &mut CudaViewMut<'_, bf16>,
        lse: &mut CudaViewMut<'_, f32>,
        ws: &mut Workspace,
    ) -> Result<()> {
        self.launch_with(self.config_for(&p.dims), stream, p, out, lse, ws)
    }

    /// Plans a call on the host ([`DevicePlan`]): validates `qo_indptr`,
    /// `kv_indptr` and, when given, `kv_indices` against `dims` (as
    /// [`HostPlan::new`]), makes the work-unit plan and uploads it with
    /// `stream`, which it then synchronises (not capturable; the launches
    /// are). `Ok` plans are valid for launches on any stream of this context,
    /// for calls of the same `total_q`, `batch` and `num_kv_indices`
    /// (`dims.num_pages` only bounds `kv_indices` here, when given).
    pub fn plan(
        &self,
        stream: &Arc<CudaStream>,
        dims: &Dims,
        qo_indptr: &[i32],
        kv_indptr: &[i32],
        kv_indices: Option<&[i32]>,
    ) -> Result<DevicePlan> {
        let host = HostPlan::new(dims, qo_indptr, kv_indptr, kv_indices)?;
        let config = self.opts.tile.unwrap_or(host.config);
        let shape = self.launch_shape(config, dims);
        let partial_slots = self.partial_slots(config);
        let launch = shape.map(|(grid, direct)| {
            let inputs = units::PlanInputs {
                config,
                qo_indptr,
                kv_indptr,
                total_q: dims.total_q,
                num_kv_indices: dims.num_kv_indices,
                grid: grid as usize,
                split: self.opts.split,
                partial_slots: partial_slots as usize,
            };
            // One CTA per unit (a diagnostic) keeps the persistent entry.
            let resident = match self.kernel(config).resident_ctas {
                u32::MAX => 0,
                r => r as u64,
            };
            units::planned_launch(&inputs, direct, resident)
        });
        let (grid, direct) = launch.as_ref().map_or((0, false), |l| {
            (l.grid.min(u32::MAX as u64) as u32, l.direct)
        });
        let image = launch.and_then(|l| l.image);
        let inline = image
            .as_deref()
            .and_then(|img| units::inline_plan(img, config, dims.batch))
            .map(Box::new);
        let image = match image.filter(|_| inline.is_none()) {
            Some(img) => {
                let buf = stream.clone_htod(&img)?;
                let (ptr, guard) = buf.device_ptr(stream);
                drop(guard);
                stream.synchronize()?;
                Some((buf, ptr))
            }
            None => None,
        };
        Ok(DevicePlan {
            host,
            config,
            ctx: self.ctx.clone(),
            shape_grid: shape.map_or(0, |s| s.0),
            grid,
            direct,
            partial_slots,
            image,
            inline,
        })
    }

    /// Like [`PagedPrefill::launch`], for a call planned on the host
    /// ([`PagedPrefill::plan`]): its tile configuration, and its work-unit
    /// plan instead of one built on the device. `Err(Error::PlanMismatch)`
    /// if the plan was made for other dimensions or by another
    /// [`PagedPrefill`].
    pub fn launch_planned(
        &self,
        plan: &DevicePlan,
        stream: &CudaStream,
        p: &DeviceProblem<'_>,
        out: &mut CudaViewMut<'_, bf16>,
        lse: &mut CudaViewMut<'_, f32>,
        ws: &mut Workspace,
    ) -> Result<()> {
        plan.check_dims(&p.dims)?;
        let (call, _guards) = raw_call(stream, p, out, lse)?;
        // SAFETY: every address comes from a live cudarc view of the length
        // its shape needs (checked above), on this context.
        unsafe { self.launch_raw_with(plan.config, stream.cu_stream(), &call, ws, Some(plan)) }
    }

    fn launch_with(
        &self,
        config: TileConfig,
        stream: &CudaStream,
        p: &DeviceProblem<'_>,
        out: &mut CudaViewMut<'_, bf16>,
        lse: &mut CudaViewMut<'_, f32>,
        ws: &mut Workspace,
    ) -> Result<()> {
        let (call, _guards) = raw_call(stream, p, out, lse)?;
        // SAFETY: every address comes from a live cudarc view of the length
        // its shape needs (checked above), on this context.
        unsafe { self.launch_raw_with(config, stream.cu_stream(), &call, ws, None) }
    }

    /// Launches a call described by raw device addresses on a raw stream of
    /// this context: the entry point for bindings. Validates the geometry,
    /// `sm_scale`, alignment, aliasing and the workspace's stream, like
    /// [`PagedPrefill::launch`].
    ///
    /// # Safety
    /// Every address must point to device memory of this context holding at
    /// least the bytes its shape in `call.dims` needs (inputs readable,
    /// outputs writable) until the launch has finished on `stream`, and
    /// `stream` must be a live stream of this context.
    pub unsafe fn launch_raw(
        &self,
        stream: sys::CUstream,
        call: &RawCall,
        ws: &mut Workspace,
    ) -> Result<()> {
        check_raw_shapes(call)?;
        self.launch_raw_with(self.config_for(&call.dims), stream, call, ws, None)
    }

    /// [`PagedPrefill::launch_raw`] for a call planned on the host
    /// ([`PagedPrefill::plan`]; see [`PagedPrefill::launch_planned`]).
    ///
    /// # Safety
    /// As [`PagedPrefill::launch_raw`].
    pub unsafe fn launch_raw_planned(
        &self,
        stream: sys::CUstream,
        call: &RawCall,
        ws: &mut Workspace,
        plan: &DevicePlan,
    ) -> Result<()> {
        plan.check_dims(&call.dims)?;
        check_raw_shapes(call)?;
        self.launch_raw_with(plan.config, stream, call, ws, Some(plan))
    }

    /// The grid of a call and whether it is direct (a unit per CTA at most
    /// and nothing to split: the plan could not change anything, so the
    /// kernel skips it, the shortest path for tiny calls); `None` for a call
    /// with nothing to compute.
    fn launch_shape(&self, config: TileConfig, dims: &Dims) -> Option<(u32, bool)> {
        let k = self.kernel(config);
        if k.resident_ctas != u32::MAX {
            let (grid, direct) =
                units::launch_grid(config, dims, self.opts.split, k.resident_ctas as u64)?;
            return Some((grid.min(u32::MAX as u64) as u32, direct));
        }
        // `one_cta_per_unit`: one CTA per tile.
        let tiles = schedule::tiles_per_head(dims.total_q, dims.batch, config.block_m()) as u64
            * NUM_KV_HEADS as u64;
        if tiles == 0 {
            return None;
        }
        let grid = tiles.min(i32::MAX as u64) as u32;
        let max_units = units::max_units(config, dims, self.opts.split, u32::MAX as u64);
        Some((grid, max_units == tiles && tiles <= grid as u64))
    }

    /// Merge slots a workspace holds for `config`.
    fn partial_slots(&self, config: TileConfig) -> i32 {
        (self.ws_layout.slots_rows / config.block_m() as u64).min(i32::MAX as u64) as i32
    }

    /// Validates what the host can see and launches.
    unsafe fn launch_raw_with(
        &self,
        config: TileConfig,
        stream: sys::CUstream,
        call: &RawCall,
        ws: &mut Workspace,
        plan: Option<&DevicePlan>,
    ) -> Result<()> {
        let mut params = self.params(config, stream, call, ws)?;
        let Some((mut grid, mut direct)) = self.launch_shape(config, &call.dims) else {
            return Ok(()); // no sequences and no rows: nothing to compute
        };
        let k = self.kernel(config);
        if let Some(plan) = plan {
            if !Arc::ptr_eq(&plan.ctx, &self.ctx)
                || plan.shape_grid != grid
                || plan.partial_slots != params.partial_slots
                || plan.config != config
            {
                return Err(Error::PlanMismatch(
                    "the plan was made by another PagedPrefill".into(),
                ));
            }
            (grid, direct) = (plan.grid, plan.direct);
            if let Some((_, ptr)) = &plan.image {
                params.plan = *ptr;
            }
            if let Some(inline) = &plan.inline {
                params.inline_batch = params.batch;
                params.inline_plan = **inline;
            }
        }
        let cfg = LaunchConfig {
            grid_dim: (grid, 1, 1),
            block_dim: (k.threads, 1, 1),
            shared_mem_bytes: k.smem_bytes,
        };
        self.ctx.bind_to_thread()?;
        let mut arg = params;
        let mut args = [&mut arg as *mut Params as *mut std::ffi::c_void];
        // SAFETY: params were validated: every buffer has the length its
        // shape needs (the caller's contract), the kernel bounds-checks all
        // index contents, and the workspace belongs to this stream.
        cudarc::driver::result::launch_kernel(
            if direct { &k.direct_func } else { &k.func }.cu_function(),
            cfg.grid_dim,
            cfg.block_dim,
            cfg.shared_mem_bytes,
            stream,
            &mut args,
        )?;
        Ok(())
    }

    /// Checks alignment, aliasing and the workspace, and builds the kernel
    /// parameters. Index contents are checked by the kernel itself.
    fn params(
        &self,
        config: TileConfig,
        stream: sys::CUstream,
        c: &RawCall,
        ws: &Workspace,
    ) -> Result<Params> {
        if ws.stream != stream as usize
            || !Arc::ptr_eq(&ws.ctx, &self.ctx)
            || ws.layout != self.ws_layout
        {
            return Err(Error::WorkspaceStream);
        }
        let d = &c.dims;
        let tiles = schedule::tiles_per_head(d.total_q, d.batch, config.block_m());
        let units = tiles as u128 * NUM_KV_HEADS as u128;
        if units > i32::MAX as u128 / 4 {
            return Err(Error::TooLarge {
                what: "work units (tiles)",
                value: units,
                limit: i32::MAX as u128 / 4,
            });
        }
        let ws_ptr = ws.ptr;
        check_addresses(c, Some((ws_ptr, ws.layout.bytes)))?;
        let l = &ws.layout;
        Ok(Params {
            q: c.q,
            k_cache: c.k_cache,
            v_cache: c.v_cache,
            qo_indptr: c.qo_indptr,
            kv_indptr: c.kv_indptr,
            kv_indices: c.kv_indices,
            out: c.out,
            lse: c.lse,
            ws_counters: ws_ptr,
            ws_sem: ws_ptr + l.sem_offset,
            ws_partial_lse: ws_ptr + l.lse_offset,
            ws_partial_o: ws_ptr + l.o_offset,
            plan: 0,
            total_q: d.total_q as i64,
            num_pages: d.num_pages as i64,
            batch: d.batch as i32,
            num_kv_indices: d.num_kv_indices as i32,
            tiles_per_head: tiles as i32,
            partial_slots: self.partial_slots(config),
            split_blocks: self.opts.split.kernel_value(),
            sm_scale: c.sm_scale,
            sm_scale_log2: c.sm_scale * std::f32::consts::LOG2_E,
            inline_batch: 0,
            inline_plan: [0; units::INLINE_PLAN_INTS],
        })
    }

    /// Like [`PagedPrefill::launch`], then waits for the result and returns
    /// `Err(Error::DeviceIndexData)` if the kernel met bad index data. Not
    /// capturable (it synchronises `stream`).
    pub fn launch_checked(
        &self,
        stream: &Arc<CudaStream>,
        p: &DeviceProblem<'_>,
        out: &mut CudaViewMut<'_, bf16>,
        lse: &mut CudaViewMut<'_, f32>,
        ws: &mut Workspace,
    ) -> Result<()> {
        // SAFETY: `stream` is a live stream of this context.
        unsafe { self.reset_flag(stream.cu_stream(), ws) }?;
        self.launch(stream, p, out, lse, ws)?;
        // SAFETY: as above.
        flag_result(unsafe { self.read_flag(stream.cu_stream(), ws) }?)
    }

    /// Reads and clears the error flag that unchecked launches with `ws`
    /// accumulated (synchronises `stream`).
    pub fn take_device_errors(&self, stream: &CudaStream, ws: &mut Workspace) -> Result<()> {
        // SAFETY: `stream` is a live stream of this context.
        unsafe { self.take_device_errors_raw(stream.cu_stream(), ws) }
    }

    /// [`PagedPrefill::take_device_errors`] on a raw stream of this context.
    ///
    /// # Safety
    /// `stream` must be a live stream of this context.
    pub unsafe fn take_device_errors_raw(
        &self,
        stream: sys::CUstream,
        ws: &mut Workspace,
    ) -> Result<()> {
        let bits = self.read_flag(stream, ws)?;
        self.reset_flag(stream, ws)?;
        cudarc::driver::result::stream::synchronize(stream)?;
        flag_result(bits)
    }

    unsafe fn reset_flag(&self, stream: sys::CUstream, ws: &mut Workspace) -> Result<()> {
        if ws.stream != stream as usize {
            return Err(Error::WorkspaceStream);
        }
        // The raw memset needs the context current on this thread.
        self.ctx.bind_to_thread()?;
        // The first 4 bytes of the workspace are the error flag.
        cudarc::driver::result::memset_d8_async(ws.ptr, 0, 4, stream)?;
        Ok(())
    }

    unsafe fn read_flag(&self, stream: sys::CUstream, ws: &Workspace) -> Result<i32> {
        if ws.stream != stream as usize {
            return Err(Error::WorkspaceStream);
        }
        self.ctx.bind_to_thread()?;
        let mut host = [0i32; 1];
        cudarc::driver::result::memcpy_dtoh_async(&mut host, ws.ptr, stream)?;
        cudarc::driver::result::stream::synchronize(stream)?;
        Ok(host[0])
    }

    /// Launches the plain fp32 reference kernel (for checking; slow). Inputs
    /// must be valid (validated on the host beforehand).
    pub fn launch_reference(
        &self,
        stream: &CudaStream,
        p: &DeviceProblem<'_>,
        out: &mut CudaViewMut<'_, bf16>,
        lse: &mut CudaViewMut<'_, f32>,
    ) -> Result<()> {
        // The same length, alignment and aliasing rules as the fast kernel,
        // so that every entry point refuses the same calls.
        let (call, _guards) = raw_call(stream, p, out, lse)?;
        check_addresses(&call, None)?;
        let warps = p.dims.total_q as u64 * NUM_QO_HEADS as u64;
        if warps == 0 || p.dims.batch == 0 {
            return Ok(());
        }
        let blocks = warps.div_ceil(8);
        let cfg = LaunchConfig {
            grid_dim: (blocks as u32, 1, 1),
            block_dim: (256, 1, 1),
            shared_mem_bytes: 0,
        };
        let total_q = p.dims.total_q as i64;
        let batch = p.dims.batch as i32;
        let num_pages = p.dims.num_pages as i64;
        let mut b = stream.launch_builder(&self.reference);
        b.arg(&call.q)
            .arg(&call.k_cache)
            .arg(&call.v_cache)
            .arg(&call.qo_indptr)
            .arg(&call.kv_indptr)
            .arg(&call.kv_indices)
            .arg(&call.out)
            .arg(&call.lse)
            .arg(&total_q)
            .arg(&batch)
            .arg(&num_pages)
            .arg(&p.sm_scale);
        // SAFETY: lengths checked above; the reference kernel trusts the
        // indices, which the caller validated on the host.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launch_info_in_words() {
        let info = |config, direct, host_plan| LaunchInfo {
            config,
            grid: 132,
            direct,
            host_plan,
        };
        assert_eq!(
            info(TileConfig::M128, true, false).to_string(),
            "m128 direct"
        );
        assert_eq!(
            info(TileConfig::M64, false, true).to_string(),
            "m64 host plan"
        );
        assert_eq!(
            info(TileConfig::M64, true, true).to_string(),
            "m64 direct host plan"
        );
        assert_eq!(
            info(TileConfig::M128, false, false).to_string(),
            "m128 device plan"
        );
    }

    /// On an H200 (132 SMs; m64 two CTAs per SM): the workspace of the four
    /// chosen configurations (528 slots of 128 rows, 1056 of 64), and every
    /// configuration's merge slots and semaphores inside it, M192's three a
    /// slot included.
    #[test]
    fn workspace_holds_every_configuration() {
        let grids = TileConfig::ALL.map(|c| (c, if c == TileConfig::M64 { 264 } else { 132 }));
        let l = WorkspaceLayout::for_grids(grids.into_iter());
        assert_eq!(l.slots_rows, 528 * 128);
        assert_eq!(l.lse_offset, WS_COUNTERS * 4 + 1056 * 2 * 4);
        for c in TileConfig::ALL {
            let slots = l.slots_rows / c.block_m() as u64;
            assert!(
                slots * sems_per_slot(c) * 4 <= l.lse_offset - l.sem_offset,
                "{c:?}"
            );
            assert!(
                slots * c.block_m() as u64 * 16 <= l.o_offset - l.lse_offset,
                "{c:?}"
            );
            assert!(
                slots * c.block_m() as u64 * 128 * 4 <= l.bytes - l.o_offset,
                "{c:?}"
            );
        }
        assert_eq!(l.slots_rows / 192, 352);
        assert_eq!(sems_per_slot(TileConfig::M192), 3);
    }
}
