//! `pagedattn._native`: the Python extension module (PyO3, abi3 >= 3.9).
//!
//! The hot path is `run`: for torch CUDA tensors it reads each tensor through
//! torch's DLPack C exchange API (torch >= 2.10: a C call per tensor, no Python
//! attribute reads; older torch: a few attribute reads), checks dtypes, shapes,
//! devices and contiguity, and makes one
//! call of [`PagedPrefill::launch_raw`] on torch's current stream (or the
//! `stream=` argument), with the workspace cached per (device, stream). No host
//! synchronisation, no allocation, no device copy: capturable in a CUDA graph.
//! Other CUDA arrays go through DLPack (slower, same launch). CPU inputs (numpy,
//! torch CPU tensors) are handed to `pagedattn._cpu`, which checks them and
//! calls `_cpu_attention` (the exact CPU backend).

use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use pagedattn::backend::cuda::{
    DevicePlan, PagedPrefill, RawCall, Workspace, HAS_KERNELS, PTXAS_REPORT,
};
use pagedattn::cudarc::driver::{sys, CudaContext, CudaStream};
use pagedattn::half::bf16;
use pagedattn::problem::{
    default_sm_scale, Dims, HostProblem, HEAD_DIM, NUM_KV_HEADS, NUM_QO_HEADS,
};
use pagedattn::Error;
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyCapsule, PyDict, PyTuple, PyType};
use pyo3::{intern, IntoPyObjectExt};

pyo3::create_exception!(
    _native,
    DeviceIndexError,
    PyValueError,
    "The kernel met invalid index data (a page id outside [0, num_pages) or a bad indptr) in device memory."
);

/// Library error -> Python exception: bad arguments are `ValueError`, bad
/// device-side index data is `DeviceIndexError` (a `ValueError`), the rest
/// (no device, driver errors) `RuntimeError`. Every message names the argument.
fn to_py(e: Error) -> PyErr {
    let msg = e.to_string();
    match e {
        Error::DeviceIndexData(_) => DeviceIndexError::new_err(msg),
        Error::UnsupportedGeometry { .. }
        | Error::BufferLength { .. }
        | Error::IndptrEmpty { .. }
        | Error::IndptrLengthMismatch { .. }
        | Error::IndptrFirstNotZero { .. }
        | Error::NegativeEntry { .. }
        | Error::IndptrDecreasing { .. }
        | Error::IndptrLast { .. }
        | Error::PageOutOfRange { .. }
        | Error::NonFiniteScale(_)
        | Error::TooLarge { .. }
        | Error::Misaligned { .. }
        | Error::Aliasing { .. }
        | Error::PlanMismatch(_) => PyValueError::new_err(msg),
        _ => PyRuntimeError::new_err(msg),
    }
}

fn cu(r: sys::CUresult, what: &str) -> PyResult<()> {
    if r == sys::CUresult::CUDA_SUCCESS {
        Ok(())
    } else {
        Err(PyRuntimeError::new_err(format!(
            "CUDA driver error in {what}: {r:?}"
        )))
    }
}

// ---------------------------------------------------------------- shapes

/// A tensor's shape (at most 5 dims are ever accepted).
#[derive(Clone, Copy, Default)]
struct Shape {
    d: [i64; 6],
    n: usize,
}

impl Shape {
    fn dims(&self) -> &[i64] {
        &self.d[..self.n]
    }
    fn show(&self) -> String {
        format!("{:?}", self.dims())
    }
}

const Q_SHAPE: &str = "[total_q, 24, 128]";
const KV_SHAPE: &str = "[num_pages, 1, 4, 128] (or [num_pages, 4, 128])";

/// The call's sizes from the shapes of its eight tensors; `ValueError` naming
/// the first argument whose shape is wrong.
fn dims_from_shapes(s: &[Shape; 8]) -> PyResult<Dims> {
    let [q, k, v, qo, kv, idx, out, lse] = s;
    let (h, kvh, d) = (NUM_QO_HEADS as i64, NUM_KV_HEADS as i64, HEAD_DIM as i64);
    let bad = |name: &str, want: &str, got: &Shape| {
        PyValueError::new_err(format!(
            "`{name}` must have shape {want}, got {}",
            got.show()
        ))
    };
    if q.n != 3 || q.d[1] != h || q.d[2] != d {
        return Err(bad("q", Q_SHAPE, q));
    }
    let kv_ok = |t: &Shape| match t.n {
        4 => t.d[1] == 1 && t.d[2] == kvh && t.d[3] == d,
        3 => t.d[1] == kvh && t.d[2] == d,
        _ => false,
    };
    if !kv_ok(k) {
        return Err(bad("k_cache", KV_SHAPE, k));
    }
    if !kv_ok(v) {
        return Err(bad("v_cache", KV_SHAPE, v));
    }
    if v.d[0] != k.d[0] {
        return Err(PyValueError::new_err(format!(
            "`v_cache` has {} pages but `k_cache` has {}: they must match",
            v.d[0], k.d[0]
        )));
    }
    if qo.n != 1 || qo.d[0] < 1 {
        return Err(bad(
            "qo_indptr",
            "[batch + 1] (1-D, at least one entry)",
            qo,
        ));
    }
    if kv.n != 1 || kv.d[0] != qo.d[0] {
        return Err(PyValueError::new_err(format!(
            "`kv_indptr` must be 1-D with as many entries as `qo_indptr` ({}), got shape {}",
            qo.d[0],
            kv.show()
        )));
    }
    if idx.n != 1 {
        return Err(bad("kv_indices", "[num_kv_indices] (1-D)", idx));
    }
    if out.dims() != q.dims() {
        return Err(bad("output", &format!("{} (that of `q`)", q.show()), out));
    }
    if lse.n != 2 || lse.d[0] != q.d[0] || lse.d[1] != h {
        return Err(bad(
            "lse",
            &format!("[{}, 24] ([total_q, 24])", q.d[0]),
            lse,
        ));
    }
    Ok(Dims::new(
        q.d[0] as usize,
        k.d[0] as usize,
        (qo.d[0] - 1) as usize,
        idx.d[0] as usize,
    ))
}

const NAMES: [&str; 8] = [
    "q",
    "k_cache",
    "v_cache",
    "qo_indptr",
    "kv_indptr",
    "kv_indices",
    "output",
    "lse",
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum DType {
    Bf16,
    I32,
    F32,
}

impl DType {
    fn name(self) -> &'static str {
        match self {
            DType::Bf16 => "bfloat16",
            DType::I32 => "int32",
            DType::F32 => "float32",
        }
    }
}

const DTYPES: [DType; 8] = [
    DType::Bf16,
    DType::Bf16,
    DType::Bf16,
    DType::I32,
    DType::I32,
    DType::I32,
    DType::Bf16,
    DType::F32,
];

/// One parsed device tensor.
#[derive(Clone, Copy, Default)]
struct DevTensor {
    ptr: u64,
    shape: Shape,
}

fn device_name(d: i32) -> String {
    if d < 0 {
        "cpu".into()
    } else {
        format!("cuda:{d}")
    }
}

// ---------------------------------------------------------------- torch

/// torch objects the hot path compares against, found once torch is imported.
struct TorchRefs {
    tensor: Py<PyType>,
    dtypes: [Py<PyAny>; 3], // bf16, int32, float32
    current_raw_stream: Py<PyAny>,
    /// torch's DLPack C exchange API (torch >= 2.10), if it has one.
    exchange: Option<&'static ExchangeApi>,
}

static TORCH: GILOnceCell<TorchRefs> = GILOnceCell::new();

/// The torch references, if torch has been imported by anyone (never imports it).
fn torch_refs(py: Python<'_>) -> PyResult<Option<&'static TorchRefs>> {
    if let Some(t) = TORCH.get(py) {
        return Ok(Some(t));
    }
    let modules = py.import("sys")?.getattr("modules")?;
    let Ok(torch) = modules.get_item("torch") else {
        return Ok(None);
    };
    let refs = TorchRefs {
        tensor: torch.getattr("Tensor")?.downcast_into::<PyType>()?.unbind(),
        dtypes: [
            torch.getattr("bfloat16")?.unbind(),
            torch.getattr("int32")?.unbind(),
            torch.getattr("float32")?.unbind(),
        ],
        current_raw_stream: torch
            .getattr("_C")?
            .getattr("_cuda_getCurrentRawStream")?
            .unbind(),
        exchange: exchange_api(&torch.getattr("Tensor")?),
    };
    let _ = TORCH.set(py, refs);
    Ok(TORCH.get(py))
}

fn dtype_ref(t: &TorchRefs, d: DType) -> &Py<PyAny> {
    match d {
        DType::Bf16 => &t.dtypes[0],
        DType::I32 => &t.dtypes[1],
        DType::F32 => &t.dtypes[2],
    }
}

fn type_name(x: &Bound<'_, PyAny>) -> String {
    x.get_type()
        .fully_qualified_name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into())
}

fn read_shape(shape: &Bound<'_, PyAny>, name: &str) -> PyResult<Shape> {
    let t = shape.downcast::<PyTuple>()?;
    let n = t.len();
    if n > 6 {
        return Err(PyValueError::new_err(format!(
            "`{name}` has {n} dimensions: far too many"
        )));
    }
    let mut s = Shape {
        n,
        ..Shape::default()
    };
    for (i, d) in s.d.iter_mut().enumerate().take(n) {
        // SAFETY: `t` is a tuple (checked above) with more than `i` items;
        // PyTuple_GetItem returns a borrowed reference (limited API).
        let item = unsafe { pyo3::ffi::PyTuple_GetItem(t.as_ptr(), i as pyo3::ffi::Py_ssize_t) };
        *d = as_i64(shape.py(), item)?;
    }
    Ok(s)
}

/// A Python int (borrowed pointer, may be null on error) as i64.
fn as_i64(py: Python<'_>, o: *mut pyo3::ffi::PyObject) -> PyResult<i64> {
    if o.is_null() {
        return Err(PyErr::fetch(py));
    }
    // SAFETY: `o` is a live object; errors are reported through PyErr.
    let v = unsafe { pyo3::ffi::PyLong_AsLongLong(o) };
    if v == -1 {
        if let Some(e) = PyErr::take(py) {
            return Err(e);
        }
    }
    Ok(v)
}

/// `obj.name()` through PyObject_CallMethodObjArgs (limited API), which
/// calls an unbound method without making a bound-method object.
fn call0<'py>(
    obj: &Bound<'py, PyAny>,
    name: &Bound<'py, pyo3::types::PyString>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = obj.py();
    // SAFETY: both are live objects; the variadic list ends with NULL; the
    // result is a new reference or NULL with an exception set.
    unsafe {
        let r = pyo3::ffi::PyObject_CallMethodObjArgs(
            obj.as_ptr(),
            name.as_ptr(),
            std::ptr::null_mut::<pyo3::ffi::PyObject>(),
        );
        Bound::from_owned_ptr_or_err(py, r)
    }
}

/// Reads one torch tensor of a GPU call: dtype, device, contiguity, shape, address.
fn read_torch(
    py: Python<'_>,
    t: &Bound<'_, PyAny>,
    i: usize,
    refs: &TorchRefs,
    device: i32,
) -> PyResult<DevTensor> {
    let name = NAMES[i];
    if !t.is_instance(refs.tensor.bind(py))? {
        return Err(PyTypeError::new_err(format!(
            "`{name}` must be a torch.Tensor like `q`, got {}",
            type_name(t)
        )));
    }
    let dt = t.getattr(intern!(py, "dtype"))?;
    let want = DTYPES[i];
    if !dt.is(dtype_ref(refs, want).bind(py)) {
        return Err(PyTypeError::new_err(format!(
            "`{name}` must be torch.{}, got {dt}",
            want.name()
        )));
    }
    if i > 0 {
        let d = as_i64(py, call0(t, intern!(py, "get_device"))?.as_ptr())? as i32;
        if d != device {
            return Err(PyValueError::new_err(format!(
                "`{name}` is on {} but `q` is on {}: every tensor of a call must be on one device",
                device_name(d),
                device_name(device)
            )));
        }
    }
    if !call0(t, intern!(py, "is_contiguous"))?.is_truthy()? {
        return Err(PyValueError::new_err(format!(
            "`{name}` must be contiguous (row-major): call .contiguous() first"
        )));
    }
    let shape = read_shape(&t.getattr(intern!(py, "shape"))?, name)?;
    let ptr = as_i64(py, call0(t, intern!(py, "data_ptr"))?.as_ptr())? as u64;
    Ok(DevTensor { ptr, shape })
}

// ------------------------------------------------- torch's C exchange API

#[repr(C)]
struct DLPackVersion {
    major: u32,
    minor: u32,
}

/// `DLPackExchangeAPI` of dlpack.h (DLPack >= 1.2; major version 1): a table
/// of C functions a framework publishes on its tensor type, so that a
/// consumer reads a tensor without any Python call.
#[repr(C)]
struct ExchangeApi {
    version: DLPackVersion,
    prev_api: *const c_void,
    managed_tensor_allocator: *const c_void,
    managed_tensor_from_py_object_no_sync: *const c_void,
    managed_tensor_to_py_object_no_sync: *const c_void,
    /// Fills a non-owning DLTensor view (valid while the object lives); 0 on
    /// success, -1 with a Python exception set. May be null.
    dltensor_from_py_object_no_sync:
        Option<unsafe extern "C" fn(py_object: *mut c_void, out: *mut DLTensor) -> i32>,
    /// The framework's current stream of a device (torch's current stream).
    current_work_stream: Option<
        unsafe extern "C" fn(device_type: i32, device_id: i32, out: *mut *mut c_void) -> i32,
    >,
}

// SAFETY: the table is static, immutable data of the producer, alive for the
// process (dlpack.h); its functions are called with the GIL held.
unsafe impl Sync for ExchangeApi {}

/// The exchange table of a tensor type: `__dlpack_c_exchange_api__` (a capsule
/// named "dlpack_exchange_api"), or the older `__c_dlpack_exchange_api__`
/// (a capsule or an int address). None if absent or of another major version.
fn exchange_api(tensor_type: &Bound<'_, PyAny>) -> Option<&'static ExchangeApi> {
    let mut ptr: *const ExchangeApi = std::ptr::null();
    for attr in ["__dlpack_c_exchange_api__", "__c_dlpack_exchange_api__"] {
        let Ok(v) = tensor_type.getattr(attr) else {
            continue;
        };
        if let Ok(c) = v.downcast::<PyCapsule>() {
            if c.name().ok().flatten().map(|n| n.to_bytes()) == Some(b"dlpack_exchange_api") {
                ptr = c.pointer() as *const ExchangeApi;
            }
        } else if let Ok(a) = v.extract::<usize>() {
            ptr = a as *const ExchangeApi;
        }
        if !ptr.is_null() {
            break;
        }
    }
    // SAFETY: the producer keeps the table alive for the process (dlpack.h).
    let api = unsafe { ptr.as_ref()? };
    (api.version.major == 1 && api.dltensor_from_py_object_no_sync.is_some()).then_some(api)
}

/// What a tensor's DLTensor view says, checked like `read_torch` checks the
/// tensor; None when anything differs (the caller then takes the attribute
/// path, which succeeds or raises the error that names the argument).
fn read_view(api: &ExchangeApi, t: &Bound<'_, PyAny>, i: usize, device: i32) -> Option<DevTensor> {
    check_view(&view(api, t)?, i, device)
}

/// `read_view` on a view already taken.
fn check_view(dl: &DLTensor, i: usize, device: i32) -> Option<DevTensor> {
    if dl.device.device_type != KDL_CUDA || dl.device.device_id != device {
        return None;
    }
    let (code, bits) = dl_dtype(DTYPES[i]);
    if dl.dtype.code != code || dl.dtype.bits != bits || dl.dtype.lanes != 1 {
        return None;
    }
    let n = usize::try_from(dl.ndim).ok().filter(|&n| n <= 6)?;
    let shape = row_major_shape(dl, n)?;
    Some(DevTensor {
        ptr: dl.data as u64 + dl.byte_offset,
        shape,
    })
}

/// The first `n` (<= 6, at most `ndim`) dimensions of `dl`, if its strides
/// (when given) are those of a row-major tensor of that shape.
fn row_major_shape(dl: &DLTensor, n: usize) -> Option<Shape> {
    let mut shape = Shape {
        n,
        ..Shape::default()
    };
    for k in 0..n {
        // SAFETY: `shape` has `ndim` entries (DLPack).
        shape.d[k] = unsafe { *dl.shape.add(k) };
    }
    // SAFETY: `strides` has `ndim` entries when non-null (DLPack).
    let strides =
        (!dl.strides.is_null()).then(|| unsafe { std::slice::from_raw_parts(dl.strides, n) });
    row_major(&shape, strides).then_some(shape)
}

/// The non-owning DLTensor view of `t`; its arrays belong to the tensor and
/// stay valid while `t` lives and is not resized. None (no exception left
/// set) if the producer refuses.
fn view(api: &ExchangeApi, t: &Bound<'_, PyAny>) -> Option<DLTensor> {
    let f = api.dltensor_from_py_object_no_sync?;
    // SAFETY: DLTensor is plain data (raw pointers and integers): all-zero is valid.
    let mut dl: DLTensor = unsafe { std::mem::zeroed() };
    // SAFETY: `t` is a live object of the type that published the table
    // (checked by the callers); `dl` is a valid out-parameter.
    if unsafe { f(t.as_ptr().cast(), &mut dl) } != 0 {
        let _ = PyErr::take(t.py());
        return None;
    }
    Some(dl)
}

/// Contiguous in torch's sense: strides of size-1 dimensions and of empty
/// tensors do not matter; no strides means row-major.
fn row_major(shape: &Shape, strides: Option<&[i64]>) -> bool {
    let Some(st) = strides else {
        return true;
    };
    if shape.dims().contains(&0) {
        return true;
    }
    let mut expected = 1i64;
    for k in (0..shape.n).rev() {
        if shape.d[k] != 1 && st[k] != expected {
            return false;
        }
        expected = expected.saturating_mul(shape.d[k]);
    }
    true
}

fn dl_dtype(d: DType) -> (u8, u8) {
    match d {
        DType::Bf16 => (4, 16),
        DType::I32 => (0, 32),
        DType::F32 => (2, 32),
    }
}

/// One tensor of a torch call: the C view when `t` is exactly a torch.Tensor
/// and torch has the exchange API, else (or if the view is refused) the
/// attribute reads.
fn read_tensor(
    py: Python<'_>,
    t: &Bound<'_, PyAny>,
    i: usize,
    refs: &TorchRefs,
    device: i32,
) -> PyResult<DevTensor> {
    if let Some(api) = refs.exchange {
        if t.get_type().is(refs.tensor.bind(py)) {
            if let Some(v) = read_view(api, t, i, device) {
                return Ok(v);
            }
        }
    }
    read_torch(py, t, i, refs, device)
}

/// The device of a torch tensor `q` (negative: CPU) and, when torch's C view
/// of it passed the checks, `q` itself (one view serves both).
fn torch_device(
    py: Python<'_>,
    q: &Bound<'_, PyAny>,
    refs: &TorchRefs,
) -> PyResult<(i32, Option<DevTensor>)> {
    if let Some(api) = refs.exchange {
        if q.get_type().is(refs.tensor.bind(py)) {
            if let Some(dl) = view(api, q) {
                if dl.device.device_type == KDL_CUDA {
                    let d = dl.device.device_id;
                    return Ok((d, check_view(&dl, 0, d)));
                }
                if dl.device.device_type == KDL_CPU {
                    return Ok((-1, None));
                }
            }
        }
    }
    Ok((
        as_i64(py, call0(q, intern!(py, "get_device"))?.as_ptr())? as i32,
        None,
    ))
}

/// torch's current stream of `device`: through the exchange API when it has
/// one, else `torch._C._cuda_getCurrentRawStream`.
fn torch_stream(py: Python<'_>, refs: &TorchRefs, device: i32) -> PyResult<usize> {
    if let Some(f) = refs.exchange.and_then(|a| a.current_work_stream) {
        let mut s: *mut c_void = std::ptr::null_mut();
        // SAFETY: a valid out-parameter; the GIL is held.
        if unsafe { f(KDL_CUDA, device, &mut s) } == 0 {
            return Ok(s as usize);
        }
        let _ = PyErr::take(py);
    }
    refs.current_raw_stream.bind(py).call1((device,))?.extract()
}

// ---------------------------------------------------------------- DLPack

#[repr(C)]
#[derive(Clone, Copy)]
struct DLDevice {
    device_type: i32,
    device_id: i32,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct DLDataType {
    code: u8,
    bits: u8,
    lanes: u16,
}

#[repr(C)]
struct DLTensor {
    data: *mut c_void,
    device: DLDevice,
    ndim: i32,
    dtype: DLDataType,
    shape: *const i64,
    strides: *const i64,
    byte_offset: u64,
}

#[repr(C)]
struct DLManagedTensor {
    dl_tensor: DLTensor,
    manager_ctx: *mut c_void,
    deleter: Option<unsafe extern "C" fn(*mut DLManagedTensor)>,
}

const KDL_CPU: i32 = 1;
const KDL_CUDA: i32 = 2;
const KDL_CUDA_MANAGED: i32 = 13;

/// `(device_type, device_id)` of an object with `__dlpack_device__`.
fn dlpack_device(x: &Bound<'_, PyAny>) -> Option<(i32, i32)> {
    let py = x.py();
    let d = x.call_method0(intern!(py, "__dlpack_device__")).ok()?;
    d.extract::<(i32, i32)>().ok()
}

/// Reads one CUDA array through DLPack. The capsule (returned too) must stay
/// alive until the launch has been enqueued; it is never consumed, so its own
/// destructor releases the producer's reference.
fn read_dlpack<'py>(
    x: &Bound<'py, PyAny>,
    i: usize,
    device: i32,
    stream: usize,
) -> PyResult<(DevTensor, Bound<'py, PyAny>)> {
    let py = x.py();
    let name = NAMES[i];
    match dlpack_device(x) {
        Some((t, d)) if (t == KDL_CUDA || t == KDL_CUDA_MANAGED) && d == device => {}
        Some((t, d)) => {
            return Err(PyValueError::new_err(format!(
                "`{name}` is on DLPack device ({t}, {d}) but `q` is on cuda:{device}: every array of a call must be on one CUDA device"
            )))
        }
        None => {
            return Err(PyTypeError::new_err(format!(
                "`{name}` must be a CUDA array supporting DLPack like `q`, got {}",
                type_name(x)
            )))
        }
    }
    // The array API: stream 1 is the legacy default stream (0 is not allowed).
    let s = if stream == 0 { 1 } else { stream };
    let kwargs = PyDict::new(py);
    kwargs.set_item("stream", s)?;
    let cap = match x.call_method(intern!(py, "__dlpack__"), (), Some(&kwargs)) {
        Ok(c) => c,
        Err(_) => x.call_method0(intern!(py, "__dlpack__"))?,
    };
    let capsule = cap.downcast::<PyCapsule>().map_err(|_| {
        PyTypeError::new_err(format!("`{name}`.__dlpack__() did not return a capsule"))
    })?;
    let ok_name = capsule
        .name()?
        .map(|n| n.to_bytes() == b"dltensor")
        .unwrap_or(false);
    if !ok_name {
        return Err(PyTypeError::new_err(format!(
            "`{name}`.__dlpack__() returned a consumed or unknown capsule"
        )));
    }
    let m = capsule.pointer() as *const DLManagedTensor;
    if m.is_null() {
        return Err(PyTypeError::new_err(format!(
            "`{name}`: empty DLPack capsule"
        )));
    }
    // SAFETY: a live "dltensor" capsule holds a valid DLManagedTensor until
    // it is destroyed; `cap` is returned so it outlives every use.
    let t = unsafe { &(*m).dl_tensor };
    let want = DTYPES[i];
    let (code, bits) = dl_dtype(want);
    if t.dtype.code != code || t.dtype.bits != bits || t.dtype.lanes != 1 {
        return Err(PyTypeError::new_err(format!(
            "`{name}` must be {}, got DLPack dtype (code {}, bits {}, lanes {})",
            want.name(),
            t.dtype.code,
            t.dtype.bits,
            t.dtype.lanes
        )));
    }
    let n = t.ndim.max(0) as usize;
    if n > 6 {
        return Err(PyValueError::new_err(format!(
            "`{name}` has {n} dimensions"
        )));
    }
    let Some(shape) = row_major_shape(t, n) else {
        return Err(PyValueError::new_err(format!(
            "`{name}` must be contiguous (row-major)"
        )));
    };
    let ptr = t.data as u64 + t.byte_offset;
    Ok((DevTensor { ptr, shape }, cap))
}

// ---------------------------------------------------------------- devices

/// Device memory this module allocated itself (workspaces made during capture
/// or for non-torch callers).
struct DevMem {
    ptr: sys::CUdeviceptr,
    ctx: Arc<CudaContext>,
}

impl Drop for DevMem {
    fn drop(&mut self) {
        // SAFETY: allocated by cuMemAlloc in `ctx`, freed once.
        unsafe {
            let _g = CtxGuard::bind(self.ctx.cu_ctx());
            let _ = sys::cuMemFree_v2(self.ptr);
        }
    }
}

/// A workspace and what keeps its memory alive. Field order is drop order:
/// the workspace (a borrowed view) goes before its memory.
struct WsSlot {
    ws: Workspace,
    _torch: Option<Py<PyAny>>,
    _mem: Option<DevMem>,
}

/// One device: its context (the primary one, shared with torch), the loaded
/// kernels and one workspace per stream.
struct Dev {
    ordinal: i32,
    ctx: Arc<CudaContext>,
    kernel: PagedPrefill,
    /// A private non-blocking stream for zeroing self-allocated workspaces.
    side: Arc<CudaStream>,
    workspaces: Mutex<HashMap<usize, WsSlot>>,
    name: String,
}

const MAX_DEVICES: usize = 64;
#[allow(clippy::declare_interior_mutable_const)]
const NO_DEV: OnceLock<Dev> = OnceLock::new();
static DEVS: [OnceLock<Dev>; MAX_DEVICES] = [NO_DEV; MAX_DEVICES];

/// Makes a context current for a scope and restores the caller's (torch's)
/// current context afterwards, so torch's notion of the current device is
/// never changed by a call.
struct CtxGuard {
    prev: sys::CUcontext,
    ours: sys::CUcontext,
}

impl CtxGuard {
    /// # Safety
    /// libcuda must be loaded; `ours` a live context.
    unsafe fn bind(ours: sys::CUcontext) -> CtxGuard {
        let mut prev: sys::CUcontext = std::ptr::null_mut();
        let _ = sys::cuCtxGetCurrent(&mut prev);
        if prev != ours {
            let _ = sys::cuCtxSetCurrent(ours);
        }
        CtxGuard { prev, ours }
    }
}

impl Drop for CtxGuard {
    fn drop(&mut self) {
        if !self.prev.is_null() && self.prev != self.ours {
            // SAFETY: `prev` was current on this thread when the guard was made.
            unsafe {
                let _ = sys::cuCtxSetCurrent(self.prev);
            }
        }
    }
}

/// Switches this thread to relaxed stream-capture mode for a scope, so that
/// allocation and module loading work while another stream is capturing.
struct RelaxedCapture {
    /// The mode to put back, if the switch happened.
    prev: Option<sys::CUstreamCaptureMode>,
}

impl RelaxedCapture {
    /// # Safety
    /// libcuda must be loaded and initialised (cuInit).
    unsafe fn enter() -> RelaxedCapture {
        let mut mode = sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED;
        let r = sys::cuThreadExchangeStreamCaptureMode(&mut mode);
        RelaxedCapture {
            prev: (r == sys::CUresult::CUDA_SUCCESS).then_some(mode),
        }
    }
}

impl Drop for RelaxedCapture {
    fn drop(&mut self) {
        if let Some(mut mode) = self.prev {
            // SAFETY: restores the mode `enter` replaced.
            unsafe {
                let _ = sys::cuThreadExchangeStreamCaptureMode(&mut mode);
            }
        }
    }
}

fn driver_present() -> PyResult<()> {
    // SAFETY: only probes whether libcuda can be opened.
    if unsafe { sys::is_culib_present() } {
        Ok(())
    } else {
        Err(PyRuntimeError::new_err(
            "no CUDA driver: libcuda could not be loaded (CPU inputs use the CPU backend)",
        ))
    }
}

fn new_dev(ordinal: i32) -> PyResult<Dev> {
    driver_present()?;
    // SAFETY: libcuda is loaded.
    cu(unsafe { sys::cuInit(0) }, "cuInit")?;
    // SAFETY: libcuda is loaded and initialised.
    let _relaxed = unsafe { RelaxedCapture::enter() };
    let mut prev: sys::CUcontext = std::ptr::null_mut();
    // SAFETY: as above; the caller's context is restored below.
    unsafe {
        let _ = sys::cuCtxGetCurrent(&mut prev);
    }
    let made = (|| -> pagedattn::Result<_> {
        let ctx = CudaContext::new(ordinal as usize)
            .map_err(|e| Error::NoDevice(format!("cuda:{ordinal}: {e}")))?;
        // Raw launches only: cudarc's cross-stream event tracking is not used.
        // SAFETY: no cudarc buffer of this module is shared between streams.
        unsafe { ctx.disable_event_tracking() };
        let kernel = PagedPrefill::new(&ctx)?;
        let side = ctx.new_stream()?;
        let name = ctx.name().unwrap_or_else(|_| "unknown GPU".into());
        Ok((ctx, kernel, side, name))
    })();
    // SAFETY: `prev` was current (or null) before.
    unsafe {
        if !prev.is_null() {
            let _ = sys::cuCtxSetCurrent(prev);
        }
    }
    let (ctx, kernel, side, name) = made.map_err(to_py)?;
    Ok(Dev {
        ordinal,
        ctx,
        kernel,
        side,
        workspaces: Mutex::new(HashMap::new()),
        name,
    })
}

/// The device state for `ordinal`, loading the kernels on first use.
fn dev(ordinal: i32) -> PyResult<&'static Dev> {
    if ordinal < 0 || ordinal as usize >= MAX_DEVICES {
        return Err(PyValueError::new_err(format!(
            "device ordinal {ordinal} is out of range"
        )));
    }
    let cell = &DEVS[ordinal as usize];
    if let Some(d) = cell.get() {
        return Ok(d);
    }
    let d = new_dev(ordinal)?;
    let _ = cell.set(d); // a racing thread may have won: keep theirs
    Ok(cell.get().expect("set above"))
}

/// Whether `stream` is capturing a CUDA graph.
fn is_capturing(dev: &Dev, stream: usize) -> PyResult<bool> {
    let mut st = sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE;
    // SAFETY: libcuda is loaded (a Dev exists); the stream is the caller's.
    let r = unsafe {
        let _g = CtxGuard::bind(dev.ctx.cu_ctx());
        sys::cuStreamIsCapturing(stream as sys::CUstream, &mut st)
    };
    cu(r, "cuStreamIsCapturing")?;
    Ok(st != sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE)
}

/// A zeroed workspace allocated here (cuMemAlloc in relaxed capture mode,
/// zeroed on the private stream and waited for): works during capture.
fn alloc_own_workspace(dev: &Dev, stream: usize) -> PyResult<WsSlot> {
    let bytes = dev.kernel.workspace_bytes();
    // SAFETY: libcuda is loaded; the memory is owned by the returned slot
    // (freed after the workspace that borrows it).
    unsafe {
        let _relaxed = RelaxedCapture::enter();
        let _g = CtxGuard::bind(dev.ctx.cu_ctx());
        let mut ptr: sys::CUdeviceptr = 0;
        cu(
            sys::cuMemAlloc_v2(&mut ptr, bytes as usize),
            "cuMemAlloc (workspace)",
        )?;
        let mem = DevMem {
            ptr,
            ctx: dev.ctx.clone(),
        };
        let side = dev.side.cu_stream();
        cu(
            sys::cuMemsetD8Async(ptr, 0, bytes as usize, side),
            "cuMemsetD8Async (workspace)",
        )?;
        cu(
            sys::cuStreamSynchronize(side),
            "cuStreamSynchronize (workspace)",
        )?;
        let ws = dev
            .kernel
            .workspace_from_raw(ptr, bytes, stream as sys::CUstream)
            .map_err(to_py)?;
        Ok(WsSlot {
            ws,
            _torch: None,
            _mem: Some(mem),
        })
    }
}

/// A workspace in a torch tensor (`torch.zeros(bytes, uint8)` on `stream`),
/// made by `pagedattn._torch_support.alloc_workspace`.
fn alloc_torch_workspace(py: Python<'_>, dev: &Dev, stream: usize) -> PyResult<WsSlot> {
    let bytes = dev.kernel.workspace_bytes();
    let t = py
        .import("pagedattn._torch_support")?
        .getattr("alloc_workspace")?
        .call1((dev.ordinal, stream, bytes))?;
    let ptr: u64 = t.call_method0("data_ptr")?.extract()?;
    // SAFETY: a zeroed (zeros, on `stream`) uint8 CUDA tensor of `bytes` bytes
    // on this device, kept alive by the slot for as long as the workspace.
    let ws = unsafe {
        dev.kernel
            .workspace_from_raw(ptr, bytes, stream as sys::CUstream)
            .map_err(to_py)?
    };
    Ok(WsSlot {
        ws,
        _torch: Some(t.unbind()),
        _mem: None,
    })
}

/// Makes sure `dev` has a workspace for `stream` (cold path: first call on a
/// stream). Torch-allocated when torch is in use and the stream is not
/// capturing; otherwise allocated here. Never holds the lock while Python runs.
fn ensure_workspace(py: Python<'_>, dev: &Dev, stream: usize, torch: bool) -> PyResult<()> {
    if dev
        .workspaces
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .contains_key(&stream)
    {
        return Ok(());
    }
    let slot = if torch && !is_capturing(dev, stream)? {
        alloc_torch_workspace(py, dev, stream)?
    } else {
        alloc_own_workspace(dev, stream)?
    };
    dev.workspaces
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .entry(stream)
        .or_insert(slot);
    Ok(())
}

/// The hot path of an unchecked call: launches if `stream` already has its
/// workspace (one lock, one lookup); false if it has none yet.
/// `go = false` does all of it but the launch (`_bench_run_dry`).
fn launch_if_ready(
    dev: &Dev,
    stream: usize,
    call: &RawCall,
    plan: Option<&DevicePlan>,
    go: bool,
) -> PyResult<bool> {
    let mut map = dev.workspaces.lock().unwrap_or_else(|e| e.into_inner());
    let Some(slot) = map.get_mut(&stream) else {
        return Ok(false);
    };
    // SAFETY: as in `launch`.
    let _g = unsafe { CtxGuard::bind(dev.ctx.cu_ctx()) };
    if !go {
        return Ok(std::hint::black_box(true));
    }
    unsafe { launch_raw(dev, stream, call, &mut slot.ws, plan) }.map_err(to_py)?;
    Ok(true)
}

/// The library's raw launch, planned on the host or not.
///
/// # Safety
/// As `PagedPrefill::launch_raw`; `dev`'s context is current.
unsafe fn launch_raw(
    dev: &Dev,
    stream: usize,
    call: &RawCall,
    ws: &mut Workspace,
    plan: Option<&DevicePlan>,
) -> pagedattn::Result<()> {
    let s = stream as sys::CUstream;
    match plan {
        Some(plan) => dev.kernel.launch_raw_planned(s, call, ws, plan),
        None => dev.kernel.launch_raw(s, call, ws),
    }
}

/// Launches on `stream` with its workspace; with `checked`, waits and raises
/// `DeviceIndexError` if the kernel met bad index data.
fn launch(
    dev: &Dev,
    stream: usize,
    call: &RawCall,
    plan: Option<&DevicePlan>,
    checked: bool,
) -> PyResult<()> {
    if checked && is_capturing(dev, stream)? {
        return Err(PyRuntimeError::new_err(
            "checked=True synchronises the stream: it cannot be used while capturing a CUDA graph \
             (capture an unchecked call, then use pagedattn.take_device_errors() after replays)",
        ));
    }
    let mut map = dev.workspaces.lock().unwrap_or_else(|e| e.into_inner());
    let slot = map
        .get_mut(&stream)
        .ok_or_else(|| PyRuntimeError::new_err("workspace missing"))?;
    {
        // SAFETY: libcuda is loaded; the addresses come from live tensors of
        // this device whose shapes were checked against `call.dims`.
        let _g = unsafe { CtxGuard::bind(dev.ctx.cu_ctx()) };
        unsafe { launch_raw(dev, stream, call, &mut slot.ws, plan) }.map_err(to_py)?;
    }
    if checked {
        // Waits with the GIL held: releasing it while this device's lock is
        // held could deadlock with another thread's call.
        // SAFETY: as above; synchronises `stream`.
        let _g = unsafe { CtxGuard::bind(dev.ctx.cu_ctx()) };
        unsafe {
            dev.kernel
                .take_device_errors_raw(stream as sys::CUstream, &mut slot.ws)
        }
        .map_err(to_py)?;
    }
    Ok(())
}

/// The raw stream handle of a `stream=` argument: an int, a torch/cupy stream
/// (`.cuda_stream` / `.ptr`), or an object with `__cuda_stream__`. `None`: torch's
/// current stream of `device` when torch is in use, else the legacy default stream.
fn resolve_stream(
    py: Python<'_>,
    stream: Option<&Bound<'_, PyAny>>,
    device: i32,
    refs: Option<&TorchRefs>,
) -> PyResult<usize> {
    let Some(s) = stream.filter(|s| !s.is_none()) else {
        return match refs {
            Some(r) => torch_stream(py, r, device),
            None => Ok(0),
        };
    };
    if let Ok(v) = s.extract::<usize>() {
        return Ok(v);
    }
    for attr in ["cuda_stream", "ptr"] {
        if let Ok(v) = s.getattr(attr) {
            if let Ok(v) = v.extract::<usize>() {
                return Ok(v);
            }
        }
    }
    if let Ok(v) = s.call_method0("__cuda_stream__") {
        if let Ok((_, h)) = v.extract::<(i64, usize)>() {
            return Ok(h);
        }
    }
    Err(PyTypeError::new_err(format!(
        "`stream` must be a raw stream handle (int), a torch.cuda.Stream or an object with __cuda_stream__, got {}",
        type_name(s)
    )))
}

fn sm_scale_of(s: Option<&Bound<'_, PyAny>>) -> PyResult<f32> {
    match s.filter(|s| !s.is_none()) {
        None => Ok(default_sm_scale()),
        Some(s) => {
            let v: f64 = s.extract().map_err(|_| {
                PyTypeError::new_err(format!("`sm_scale` must be a float, got {}", type_name(s)))
            })?;
            if !v.is_finite() {
                return Err(PyValueError::new_err(format!(
                    "`sm_scale` is {v}: it must be finite"
                )));
            }
            Ok(v as f32)
        }
    }
}

fn raw_call(dims: Dims, t: &[DevTensor; 8], sm_scale: f32) -> RawCall {
    RawCall {
        dims,
        q: t[0].ptr,
        k_cache: t[1].ptr,
        v_cache: t[2].ptr,
        qo_indptr: t[3].ptr,
        kv_indptr: t[4].ptr,
        kv_indices: t[5].ptr,
        out: t[6].ptr,
        lse: t[7].ptr,
        sm_scale,
    }
}

/// Everything a GPU call needs, parsed from its arguments.
struct Parsed<'py> {
    dims: Dims,
    tensors: [DevTensor; 8],
    device: i32,
    stream: usize,
    sm_scale: f32,
    torch: bool,
    _capsules: Vec<Bound<'py, PyAny>>,
}

#[allow(clippy::large_enum_variant)] // lives on the stack for one call
enum Route<'py> {
    Gpu(Parsed<'py>),
    Cpu,
}

#[allow(clippy::too_many_arguments)]
fn parse<'py>(
    py: Python<'py>,
    args: [&Bound<'py, PyAny>; 8],
    sm_scale: Option<&Bound<'py, PyAny>>,
    stream: Option<&Bound<'py, PyAny>>,
) -> PyResult<Route<'py>> {
    let q = args[0];
    let refs = torch_refs(py)?;
    if let Some(r) = refs {
        if q.is_instance(r.tensor.bind(py))? {
            let (device, q_view) = torch_device(py, q, r)?;
            if device < 0 {
                return Ok(Route::Cpu);
            }
            let mut tensors = [DevTensor::default(); 8];
            for (i, a) in args.iter().enumerate() {
                tensors[i] = match (i, q_view) {
                    (0, Some(v)) => v,
                    _ => read_tensor(py, a, i, r, device)?,
                };
            }
            let shapes = tensors.map(|t| t.shape);
            let dims = dims_from_shapes(&shapes)?;
            let sm_scale = sm_scale_of(sm_scale)?;
            let stream = resolve_stream(py, stream, device, refs)?;
            return Ok(Route::Gpu(Parsed {
                dims,
                tensors,
                device,
                stream,
                sm_scale,
                torch: true,
                _capsules: Vec::new(),
            }));
        }
    }
    match dlpack_device(q) {
        Some((t, device)) if t == KDL_CUDA || t == KDL_CUDA_MANAGED => {
            let stream = resolve_stream(py, stream, device, refs)?;
            let mut tensors = [DevTensor::default(); 8];
            let mut caps = Vec::with_capacity(8);
            for (i, a) in args.iter().enumerate() {
                let (t, c) = read_dlpack(a, i, device, stream)?;
                tensors[i] = t;
                caps.push(c);
            }
            let shapes = tensors.map(|t| t.shape);
            let dims = dims_from_shapes(&shapes)?;
            let sm_scale = sm_scale_of(sm_scale)?;
            Ok(Route::Gpu(Parsed {
                dims,
                tensors,
                device,
                stream,
                sm_scale,
                torch: refs.is_some(),
                _capsules: caps,
            }))
        }
        Some((KDL_CPU, _)) | None => Ok(Route::Cpu),
        Some((t, d)) => Err(PyValueError::new_err(format!(
            "`q` is on DLPack device ({t}, {d}): only CUDA devices and the CPU are supported"
        ))),
    }
}

static CPU_RUN: GILOnceCell<Py<PyAny>> = GILOnceCell::new();

/// `run(q, k_cache, v_cache, qo_indptr, kv_indptr, kv_indices, sm_scale, output, lse, *, stream=None, checked=False)`
///
/// Destination passing: writes `output` [total_q, 24, 128] bf16 and `lse`
/// [total_q, 24] float32 (base 2). CUDA tensors: one kernel launch on torch's
/// current stream (or `stream`), no synchronisation, capturable. CPU tensors
/// and numpy arrays: the exact CPU backend. `checked=True` (GPU) waits for the
/// kernel and raises `DeviceIndexError` if it met bad index data. `plan`: a
/// [`Plan`] made from these indptrs (`pagedattn.plan`), used on its device
/// (the kernel then skips its own planning step); ignored elsewhere.
#[pyfunction]
#[pyo3(signature = (q, k_cache, v_cache, qo_indptr, kv_indptr, kv_indices, sm_scale, output, lse, *, stream=None, checked=false, plan=None))]
#[allow(clippy::too_many_arguments)]
fn run<'py>(
    py: Python<'py>,
    q: &Bound<'py, PyAny>,
    k_cache: &Bound<'py, PyAny>,
    v_cache: &Bound<'py, PyAny>,
    qo_indptr: &Bound<'py, PyAny>,
    kv_indptr: &Bound<'py, PyAny>,
    kv_indices: &Bound<'py, PyAny>,
    sm_scale: Option<&Bound<'py, PyAny>>,
    output: &Bound<'py, PyAny>,
    lse: &Bound<'py, PyAny>,
    stream: Option<&Bound<'py, PyAny>>,
    checked: bool,
    plan: Option<PyRef<'py, Plan>>,
) -> PyResult<()> {
    let args = [
        q, k_cache, v_cache, qo_indptr, kv_indptr, kv_indices, output, lse,
    ];
    match parse(py, args, sm_scale, stream)? {
        Route::Gpu(p) => {
            let d = dev(p.device)?;
            let call = raw_call(p.dims, &p.tensors, p.sm_scale);
            let plan = plan
                .as_ref()
                .filter(|pl| pl.device == p.device)
                .map(|pl| &pl.plan);
            if !checked && launch_if_ready(d, p.stream, &call, plan, true)? {
                return Ok(());
            }
            ensure_workspace(py, d, p.stream, p.torch)?;
            launch(d, p.stream, &call, plan, checked)
        }
        Route::Cpu => {
            let f = CPU_RUN.get_or_try_init(py, || {
                Ok::<_, PyErr>(py.import("pagedattn._cpu")?.getattr("run_cpu")?.unbind())
            })?;
            let sm = match sm_scale {
                Some(s) => s.clone(),
                None => py.None().into_bound(py),
            };
            f.bind(py).call1((
                q, k_cache, v_cache, qo_indptr, kv_indptr, kv_indices, sm, output, lse,
            ))?;
            Ok(())
        }
    }
}

/// A call planned on the host for one device (`pagedattn.plan`): the indptrs
/// validated there, the tile configuration chosen from the real sequence
/// lengths and the kernel's work-unit plan made and uploaded once, so that
/// `run(..., plan=p)` launches without the kernel's own planning step (what
/// FlashInfer's `plan()` / `run()` split does). It holds the indptr
/// contents: pass it only to calls with those indptrs (the kernel reads the
/// sequences' ranges from the plan; a mismatched plan still reads and writes
/// only the call's buffers, and a call of other `total_q`, batch or page-id
/// count is refused).
#[pyclass(frozen, module = "pagedattn._native", name = "Plan")]
struct Plan {
    device: i32,
    plan: DevicePlan,
}

#[pymethods]
impl Plan {
    /// The CUDA device ordinal the plan was uploaded to.
    #[getter]
    fn device(&self) -> i32 {
        self.device
    }

    /// The tile configuration chosen (`"m64"`, `"m128"`, `"m128d"`, `"m128dv"`
    /// or `"m192"`).
    #[getter]
    fn config(&self) -> &'static str {
        self.plan.config().name()
    }

    fn __repr__(&self) -> String {
        let d = &self.plan.host().dims;
        format!(
            "Plan(cuda:{}, {}, total_q={}, batch={}, num_kv_indices={})",
            self.device,
            self.config(),
            d.total_q,
            d.batch,
            d.num_kv_indices
        )
    }
}

/// `plan(qo_indptr, kv_indptr, *, device=0) -> Plan`
///
/// Plans calls with these indptrs (host sequences of ints: lists, tuples,
/// numpy arrays, CPU tensors) on CUDA device `device`: validates them
/// (`ValueError` naming the bad entry), makes the work-unit plan and uploads
/// it (synchronous, not capturable; the planned `run` calls are).
#[pyfunction]
#[pyo3(signature = (qo_indptr, kv_indptr, *, device=0))]
fn plan(
    py: Python<'_>,
    qo_indptr: &Bound<'_, PyAny>,
    kv_indptr: &Bound<'_, PyAny>,
    device: i32,
) -> PyResult<Plan> {
    let host_ints = |x: &Bound<'_, PyAny>, name: &str| -> PyResult<Vec<i32>> {
        let x = match x.getattr("tolist") {
            Ok(f) => f.call0()?,
            Err(_) => x.clone(),
        };
        x.extract::<Vec<i32>>()
            .map_err(|_| PyTypeError::new_err(format!("{name} must be a host sequence of int32")))
    };
    let qo = host_ints(qo_indptr, "qo_indptr")?;
    let kv = host_ints(kv_indptr, "kv_indptr")?;
    if qo.is_empty() || qo.len() != kv.len() {
        return Err(PyValueError::new_err(format!(
            "qo_indptr and kv_indptr must have the same length batch + 1 >= 1, got {} and {}",
            qo.len(),
            kv.len()
        )));
    }
    let (total_q, nki) = (qo[qo.len() - 1], kv[kv.len() - 1]);
    if total_q < 0 || nki < 0 {
        return Err(PyValueError::new_err(
            "the indptrs' last entries (total_q, num_kv_indices) must be >= 0",
        ));
    }
    // The page count does not enter a plan (page ids are checked on the device).
    let dims = Dims::new(total_q as usize, 0, qo.len() - 1, nki as usize);
    let d = dev(device)?;
    let made = py.allow_threads(|| {
        // SAFETY: libcuda is loaded (a Dev exists); the caller's context is
        // restored by the guard.
        let _relaxed = unsafe { RelaxedCapture::enter() };
        let _g = unsafe { CtxGuard::bind(d.ctx.cu_ctx()) };
        d.kernel.plan(&d.side, &dims, &qo, &kv, None)
    });
    Ok(Plan {
        device,
        plan: made.map_err(to_py)?,
    })
}

/// A call validated once by [`bind`]: the same device addresses launched on
/// the same stream by every `__call__` (the tensors' contents may change
/// between calls, as with a CUDA graph; the tensors themselves are kept
/// alive by this object and must not be resized or re-pointed).
#[pyclass(frozen, module = "pagedattn._native", name = "BoundCall")]
struct BoundCall {
    device: i32,
    stream: usize,
    call: RawCall,
    _keep: Vec<Py<PyAny>>,
}

#[pymethods]
impl BoundCall {
    /// Launches the bound call (no host synchronisation; capturable). With
    /// `checked=True`, waits and raises `DeviceIndexError` on bad index data.
    #[pyo3(signature = (*, checked=false))]
    fn __call__(&self, checked: bool) -> PyResult<()> {
        let d = dev(self.device)?;
        launch(d, self.stream, &self.call, None, checked)
    }

    /// The raw stream handle the call launches on.
    #[getter]
    fn stream(&self) -> usize {
        self.stream
    }

    /// The CUDA device ordinal.
    #[getter]
    fn device(&self) -> i32 {
        self.device
    }

    fn __repr__(&self) -> String {
        let d = &self.call.dims;
        format!(
            "BoundCall(cuda:{}, stream={:#x}, total_q={}, batch={}, num_pages={}, num_kv_indices={})",
            self.device, self.stream, d.total_q, d.batch, d.num_pages, d.num_kv_indices
        )
    }
}

/// `bind(q, k_cache, v_cache, qo_indptr, kv_indptr, kv_indices, sm_scale, output, lse, *, stream=None) -> BoundCall`
///
/// Validates a GPU call once (as `run` does) and returns an object whose
/// `__call__` only launches: the lowest host overhead, for callers that
/// reuse the same buffers (new contents, same tensors) call after call.
#[pyfunction]
#[pyo3(signature = (q, k_cache, v_cache, qo_indptr, kv_indptr, kv_indices, sm_scale, output, lse, *, stream=None))]
#[allow(clippy::too_many_arguments)]
fn bind<'py>(
    py: Python<'py>,
    q: &Bound<'py, PyAny>,
    k_cache: &Bound<'py, PyAny>,
    v_cache: &Bound<'py, PyAny>,
    qo_indptr: &Bound<'py, PyAny>,
    kv_indptr: &Bound<'py, PyAny>,
    kv_indices: &Bound<'py, PyAny>,
    sm_scale: Option<&Bound<'py, PyAny>>,
    output: &Bound<'py, PyAny>,
    lse: &Bound<'py, PyAny>,
    stream: Option<&Bound<'py, PyAny>>,
) -> PyResult<BoundCall> {
    let args = [
        q, k_cache, v_cache, qo_indptr, kv_indptr, kv_indices, output, lse,
    ];
    let Route::Gpu(p) = parse(py, args, sm_scale, stream)? else {
        return Err(PyValueError::new_err(
            "bind() is for CUDA tensors: on the CPU use run()",
        ));
    };
    let d = dev(p.device)?;
    ensure_workspace(py, d, p.stream, p.torch)?;
    let call = raw_call(p.dims, &p.tensors, p.sm_scale);
    // Alignment and aliasing are checked by launch_raw at each call.
    Ok(BoundCall {
        device: p.device,
        stream: p.stream,
        call,
        _keep: args.iter().map(|a| (*a).clone().unbind()).collect(),
    })
}

/// `run_dps(q, k_cache, v_cache, qo_indptr, kv_indptr, kv_indices, sm_scale, output, lse)`
///
/// [`run`] with exactly the definition's nine positional parameters and no
/// options (torch's current stream, unchecked): the FlashInfer-Bench entry
/// point, whose older releases refuse a signature with extra parameters.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn run_dps<'py>(
    py: Python<'py>,
    q: &Bound<'py, PyAny>,
    k_cache: &Bound<'py, PyAny>,
    v_cache: &Bound<'py, PyAny>,
    qo_indptr: &Bound<'py, PyAny>,
    kv_indptr: &Bound<'py, PyAny>,
    kv_indices: &Bound<'py, PyAny>,
    sm_scale: Option<&Bound<'py, PyAny>>,
    output: &Bound<'py, PyAny>,
    lse: &Bound<'py, PyAny>,
) -> PyResult<()> {
    run(
        py, q, k_cache, v_cache, qo_indptr, kv_indptr, kv_indices, sm_scale, output, lse, None,
        false, None,
    )
}

/// Parses a `device=` argument: None (torch's current device, else 0), an
/// int, "cuda:N" or a torch.device.
fn device_arg(py: Python<'_>, device: Option<&Bound<'_, PyAny>>) -> PyResult<i32> {
    let Some(d) = device.filter(|d| !d.is_none()) else {
        if torch_refs(py)?.is_some() {
            let torch = py.import("torch")?;
            if torch
                .getattr("cuda")?
                .call_method0("is_available")?
                .is_truthy()?
            {
                return torch
                    .getattr("cuda")?
                    .call_method0("current_device")?
                    .extract();
            }
        }
        return Ok(0);
    };
    if let Ok(i) = d.extract::<i32>() {
        return Ok(i);
    }
    if let Ok(s) = d.extract::<String>() {
        if let Some(n) = s.strip_prefix("cuda:") {
            if let Ok(i) = n.parse() {
                return Ok(i);
            }
        }
        if s == "cuda" {
            return device_arg(py, None);
        }
    }
    if let Ok(idx) = d.getattr("index") {
        if idx.is_none() {
            return device_arg(py, None);
        }
        return idx.extract();
    }
    Err(PyTypeError::new_err(format!(
        "`device` must be an int, 'cuda:N' or a torch.device, got {}",
        type_name(d)
    )))
}

/// `prepare(device=None, stream=None) -> dict`: loads the kernels on a device
/// and makes the workspace of a stream now (call it before capturing a CUDA
/// graph on that stream, or let the first call do it).
#[pyfunction]
#[pyo3(signature = (device=None, stream=None))]
fn prepare<'py>(
    py: Python<'py>,
    device: Option<&Bound<'py, PyAny>>,
    stream: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let ordinal = device_arg(py, device)?;
    let refs = torch_refs(py)?;
    let d = dev(ordinal)?;
    let s = resolve_stream(py, stream, ordinal, refs)?;
    ensure_workspace(py, d, s, refs.is_some())?;
    let info = PyDict::new(py);
    info.set_item("device", ordinal)?;
    info.set_item("name", &d.name)?;
    info.set_item("stream", s)?;
    info.set_item("workspace_bytes", d.kernel.workspace_bytes())?;
    Ok(info)
}

/// `take_device_errors(device=None, stream=None)`: waits for `stream` and
/// raises `DeviceIndexError` if an unchecked call on it since the last check
/// met bad index data in device memory (then clears the flag).
#[pyfunction]
#[pyo3(signature = (device=None, stream=None))]
fn take_device_errors(
    py: Python<'_>,
    device: Option<&Bound<'_, PyAny>>,
    stream: Option<&Bound<'_, PyAny>>,
) -> PyResult<()> {
    let ordinal = device_arg(py, device)?;
    let Some(d) = DEVS.get(ordinal.max(0) as usize).and_then(|c| c.get()) else {
        return Ok(()); // nothing ever launched there
    };
    let refs = torch_refs(py)?;
    let s = resolve_stream(py, stream, ordinal, refs)?;
    let mut map = d.workspaces.lock().unwrap_or_else(|e| e.into_inner());
    let Some(slot) = map.get_mut(&s) else {
        return Ok(());
    };
    // Waits with the GIL held (see `launch`).
    // SAFETY: libcuda is loaded (the device exists); synchronises `s`.
    let _g = unsafe { CtxGuard::bind(d.ctx.cu_ctx()) };
    unsafe {
        d.kernel
            .take_device_errors_raw(s as sys::CUstream, &mut slot.ws)
    }
    .map_err(to_py)
}

/// `_bench_launch_raw(q, ..., output, lse, n, stream=None) -> list[int]`: the
/// host nanoseconds of `n` bare `launch_raw` calls (each after a stream
/// synchronise), with the arguments parsed once: the Rust floor that the
/// Python call is compared with (bench/python/host_overhead.py).
#[pyfunction]
#[pyo3(signature = (q, k_cache, v_cache, qo_indptr, kv_indptr, kv_indices, sm_scale, output, lse, n, *, stream=None))]
#[allow(clippy::too_many_arguments)]
fn _bench_launch_raw<'py>(
    py: Python<'py>,
    q: &Bound<'py, PyAny>,
    k_cache: &Bound<'py, PyAny>,
    v_cache: &Bound<'py, PyAny>,
    qo_indptr: &Bound<'py, PyAny>,
    kv_indptr: &Bound<'py, PyAny>,
    kv_indices: &Bound<'py, PyAny>,
    sm_scale: Option<&Bound<'py, PyAny>>,
    output: &Bound<'py, PyAny>,
    lse: &Bound<'py, PyAny>,
    n: usize,
    stream: Option<&Bound<'py, PyAny>>,
) -> PyResult<Vec<u64>> {
    let args = [
        q, k_cache, v_cache, qo_indptr, kv_indptr, kv_indices, output, lse,
    ];
    let Route::Gpu(p) = parse(py, args, sm_scale, stream)? else {
        return Err(PyValueError::new_err(
            "_bench_launch_raw needs CUDA tensors",
        ));
    };
    let d = dev(p.device)?;
    ensure_workspace(py, d, p.stream, p.torch)?;
    let call = raw_call(p.dims, &p.tensors, p.sm_scale);
    let mut map = d.workspaces.lock().unwrap_or_else(|e| e.into_inner());
    let slot = map.get_mut(&p.stream).expect("made above");
    // SAFETY: as in `launch`.
    let _g = unsafe { CtxGuard::bind(d.ctx.cu_ctx()) };
    let mut times = Vec::with_capacity(n);
    for _ in 0..n {
        // SAFETY: the caller's stream of this context.
        cu(
            unsafe { sys::cuStreamSynchronize(p.stream as sys::CUstream) },
            "cuStreamSynchronize",
        )?;
        let t0 = Instant::now();
        unsafe {
            d.kernel
                .launch_raw(p.stream as sys::CUstream, &call, &mut slot.ws)
        }
        .map_err(to_py)?;
        times.push(t0.elapsed().as_nanos() as u64);
    }
    cu(
        unsafe { sys::cuStreamSynchronize(p.stream as sys::CUstream) },
        "cuStreamSynchronize",
    )?;
    Ok(times)
}

/// `_bench_run_dry(q, k_cache, v_cache, qo_indptr, kv_indptr, kv_indices, sm_scale, output, lse)`:
/// everything `run` does on the host for a CUDA call (argument parsing, the
/// tensor reads and checks, stream, workspace lookup, context guard) except
/// the launch itself, so that its time, measured from Python, is the host
/// time the Python call adds over the Rust launch without the driver's noise
/// (bench/python/host_overhead.py). The stream's workspace must exist (one
/// `run` first).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn _bench_run_dry<'py>(
    py: Python<'py>,
    q: &Bound<'py, PyAny>,
    k_cache: &Bound<'py, PyAny>,
    v_cache: &Bound<'py, PyAny>,
    qo_indptr: &Bound<'py, PyAny>,
    kv_indptr: &Bound<'py, PyAny>,
    kv_indices: &Bound<'py, PyAny>,
    sm_scale: Option<&Bound<'py, PyAny>>,
    output: &Bound<'py, PyAny>,
    lse: &Bound<'py, PyAny>,
) -> PyResult<()> {
    let args = [
        q, k_cache, v_cache, qo_indptr, kv_indptr, kv_indices, output, lse,
    ];
    let Route::Gpu(p) = parse(py, args, sm_scale, None)? else {
        return Err(PyValueError::new_err("_bench_run_dry needs CUDA tensors"));
    };
    let d = dev(p.device)?;
    let call = raw_call(p.dims, &p.tensors, p.sm_scale);
    if !launch_if_ready(d, p.stream, &call, None, false)? {
        return Err(PyRuntimeError::new_err(
            "_bench_run_dry: no workspace yet (call run first)",
        ));
    }
    Ok(())
}

/// `_bench_parse_torch(q, ..., output, lse, n) -> list[int]`: host ns of
/// reading and checking the eight torch tensors of a call (the part of
/// `run` before the launch), `n` times; any device (CPU tensors too).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn _bench_parse_torch<'py>(
    py: Python<'py>,
    q: &Bound<'py, PyAny>,
    k_cache: &Bound<'py, PyAny>,
    v_cache: &Bound<'py, PyAny>,
    qo_indptr: &Bound<'py, PyAny>,
    kv_indptr: &Bound<'py, PyAny>,
    kv_indices: &Bound<'py, PyAny>,
    output: &Bound<'py, PyAny>,
    lse: &Bound<'py, PyAny>,
    n: usize,
) -> PyResult<Vec<u64>> {
    let refs = torch_refs(py)?.ok_or_else(|| PyTypeError::new_err("torch is not imported"))?;
    let args = [
        q, k_cache, v_cache, qo_indptr, kv_indptr, kv_indices, output, lse,
    ];
    let mut times = Vec::with_capacity(n);
    for _ in 0..n {
        let t0 = Instant::now();
        let (device, q_view) = torch_device(py, q, refs)?;
        let mut tensors = [DevTensor::default(); 8];
        for (i, a) in args.iter().enumerate() {
            tensors[i] = match (i, q_view) {
                (0, Some(v)) => v,
                _ => read_tensor(py, a, i, refs, device)?,
            };
        }
        let dims = dims_from_shapes(&tensors.map(|t| t.shape))?;
        std::hint::black_box(dims);
        times.push(t0.elapsed().as_nanos() as u64);
    }
    Ok(times)
}

/// `_torch_fast_path() -> bool`: whether torch tensors are read through
/// torch's DLPack C exchange API (torch >= 2.10) rather than attribute calls.
#[pyfunction]
fn _torch_fast_path(py: Python<'_>) -> PyResult<bool> {
    Ok(torch_refs(py)?.is_some_and(|r| r.exchange.is_some()))
}

// ---------------------------------------------------------------- CPU

/// Checks one (address, bytes) buffer of the CPU call.
fn cpu_buf(name: &str, (addr, bytes): (u64, usize), elems: usize, size: usize) -> PyResult<()> {
    if bytes != elems * size {
        return Err(PyValueError::new_err(format!(
            "`{name}` has {} bytes, its shape needs {}",
            bytes,
            elems * size
        )));
    }
    if bytes > 0 && (addr == 0 || addr % size as u64 != 0) {
        return Err(PyValueError::new_err(format!(
            "`{name}` at {addr:#x} is not {size}-byte aligned"
        )));
    }
    Ok(())
}

/// # Safety
/// `addr` must point to `len` readable, aligned elements that live for `'a`.
unsafe fn host_slice<'a, T>(addr: u64, len: usize) -> &'a [T] {
    if len == 0 {
        &[]
    } else {
        std::slice::from_raw_parts(addr as *const T, len)
    }
}

/// # Safety
/// As [`host_slice`], writable, and aliased by nothing else in use.
unsafe fn host_slice_mut<'a, T>(addr: u64, len: usize) -> &'a mut [T] {
    if len == 0 {
        &mut []
    } else {
        std::slice::from_raw_parts_mut(addr as *mut T, len)
    }
}

/// `_cpu_attention(dims, bufs, sm_scale)`: the exact CPU backend on host
/// buffers given as `(address, nbytes)` in argument order (q, k_cache,
/// v_cache, qo_indptr, kv_indptr, kv_indices, output, lse); called by
/// `pagedattn._cpu` after it checked dtypes, shapes, contiguity and
/// writability. Sizes, alignment and output aliasing are checked here again;
/// index contents by the library. Runs without the GIL.
#[pyfunction]
fn _cpu_attention(
    py: Python<'_>,
    dims: (usize, usize, usize, usize),
    bufs: Vec<(u64, usize)>,
    sm_scale: f32,
) -> PyResult<()> {
    let (total_q, num_pages, batch, num_kv_indices) = dims;
    let d = Dims::new(total_q, num_pages, batch, num_kv_indices);
    d.check().map_err(to_py)?;
    if bufs.len() != 8 {
        return Err(PyValueError::new_err("_cpu_attention needs 8 buffers"));
    }
    let elems = [
        (d.q_elems(), 2),
        (d.kv_elems(), 2),
        (d.kv_elems(), 2),
        (d.indptr_len(), 4),
        (d.indptr_len(), 4),
        (d.num_kv_indices, 4),
        (d.q_elems(), 2),
        (d.lse_elems(), 4),
    ];
    for i in 0..8 {
        cpu_buf(NAMES[i], bufs[i], elems[i].0, elems[i].1)?;
    }
    let overlaps = |a: (u64, usize), b: (u64, usize)| {
        a.1 > 0 && b.1 > 0 && a.0 < b.0 + b.1 as u64 && b.0 < a.0 + a.1 as u64
    };
    for o in [6, 7] {
        for i in 0..8 {
            if i != o && overlaps(bufs[o], bufs[i]) {
                return Err(PyValueError::new_err(format!(
                    "`{}` overlaps `{}`: outputs must not alias any other buffer",
                    NAMES[o], NAMES[i]
                )));
            }
        }
    }
    // SAFETY: the caller (pagedattn._cpu) passes the address and byte size of
    // live, C-contiguous arrays of the right dtypes that it keeps referenced
    // for this call; sizes and alignment were checked above, and the two
    // outputs alias nothing.
    let (p, out, lse) = unsafe {
        (
            HostProblem {
                dims: d,
                q: host_slice::<bf16>(bufs[0].0, elems[0].0),
                k_cache: host_slice::<bf16>(bufs[1].0, elems[1].0),
                v_cache: host_slice::<bf16>(bufs[2].0, elems[2].0),
                qo_indptr: host_slice::<i32>(bufs[3].0, elems[3].0),
                kv_indptr: host_slice::<i32>(bufs[4].0, elems[4].0),
                kv_indices: host_slice::<i32>(bufs[5].0, elems[5].0),
                sm_scale,
            },
            host_slice_mut::<bf16>(bufs[6].0, elems[6].0),
            host_slice_mut::<f32>(bufs[7].0, elems[7].0),
        )
    };
    py.allow_threads(move || pagedattn::backend::cpu::attention_into(&p, out, lse))
        .map_err(to_py)
}

/// `build_info() -> dict`: version, whether the wheel carries the GPU kernels,
/// the source commit and the ptxas report of the kernels.
#[pyfunction]
fn build_info(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("version", env!("CARGO_PKG_VERSION"))?;
    d.set_item("kernels", HAS_KERNELS)?;
    d.set_item("commit", option_env!("PAGEDATTN_PY_COMMIT"))?;
    d.set_item("ptxas_report", PTXAS_REPORT)?;
    d.set_item("driver_present", unsafe { sys::is_culib_present() })?;
    Ok(d)
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(run_dps, m)?)?;
    m.add_function(wrap_pyfunction!(prepare, m)?)?;
    m.add_function(wrap_pyfunction!(bind, m)?)?;
    m.add_function(wrap_pyfunction!(plan, m)?)?;
    m.add_class::<Plan>()?;
    m.add_class::<BoundCall>()?;
    m.add_function(wrap_pyfunction!(take_device_errors, m)?)?;
    m.add_function(wrap_pyfunction!(_bench_launch_raw, m)?)?;
    m.add_function(wrap_pyfunction!(_bench_parse_torch, m)?)?;
    m.add_function(wrap_pyfunction!(_bench_run_dry, m)?)?;
    m.add_function(wrap_pyfunction!(_torch_fast_path, m)?)?;
    m.add_function(wrap_pyfunction!(_cpu_attention, m)?)?;
    m.add_function(wrap_pyfunction!(build_info, m)?)?;
    m.add("DeviceIndexError", py.get_type::<DeviceIndexError>())?;
    m.add("NUM_QO_HEADS", NUM_QO_HEADS)?;
    m.add("NUM_KV_HEADS", NUM_KV_HEADS)?;
    m.add("HEAD_DIM", HEAD_DIM)?;
    m.add("PAGE_SIZE", pagedattn::problem::PAGE_SIZE)?;
    m.add("DEFAULT_SM_SCALE", default_sm_scale().into_py_any(py)?)?;
    Ok(())
}
