"""The CPU path: numpy arrays (bf16 as ``ml_dtypes.bfloat16``) and torch CPU
tensors, checked here and computed by the exact CPU backend (no copies: the
outputs are written in place)."""

import numpy as np

from ._native import DEFAULT_SM_SCALE, HEAD_DIM, NUM_KV_HEADS, NUM_QO_HEADS, _cpu_attention

_NAMES = ("q", "k_cache", "v_cache", "qo_indptr", "kv_indptr", "kv_indices", "output", "lse")
_KINDS = ("bfloat16", "bfloat16", "bfloat16", "int32", "int32", "int32", "bfloat16", "float32")
_BF16 = None


def bf16_dtype():
    """numpy's bfloat16 dtype (from ml_dtypes)."""
    global _BF16
    if _BF16 is None:
        try:
            import ml_dtypes
        except ImportError as e:  # pragma: no cover - depends on the environment
            raise TypeError("bfloat16 numpy arrays need the ml_dtypes package (pip install ml_dtypes)") from e
        _BF16 = np.dtype(ml_dtypes.bfloat16)
    return _BF16


def _device_of(x):
    dev = getattr(x, "device", None)
    return str(dev) if dev is not None else "cpu"


def _as_numpy(x, name, kind):
    """A numpy view (no copy) of one argument, with its logical dtype checked."""
    mod = type(x).__module__
    if mod.startswith("torch") and hasattr(x, "data_ptr"):
        import torch

        if x.device.type != "cpu":
            raise ValueError(f"`{name}` is on {x.device} but `q` is on cpu: every tensor of a call must be on one device")
        want = {"bfloat16": torch.bfloat16, "int32": torch.int32, "float32": torch.float32}[kind]
        if x.dtype != want:
            raise TypeError(f"`{name}` must be torch.{kind}, got {x.dtype}")
        if not x.is_contiguous():
            raise ValueError(f"`{name}` must be contiguous (row-major): call .contiguous() first")
        t = x.detach()
        if kind == "bfloat16":
            return t.view(torch.int16).numpy()
        return t.numpy()
    if isinstance(x, np.ndarray):
        arr = x
    elif hasattr(x, "__dlpack__") or hasattr(x, "__array_interface__"):
        # Another CPU array library: zero-copy through DLPack / the array interface.
        try:
            arr = np.from_dlpack(x) if hasattr(x, "__dlpack__") else np.asarray(x)
        except Exception as e:
            raise TypeError(f"`{name}` could not be viewed as a numpy array: {e}") from e
    else:
        raise TypeError(
            f"`{name}` must be a numpy array or a tensor (torch, or any DLPack producer), got {type(x).__name__}")
    want = bf16_dtype() if kind == "bfloat16" else np.dtype(kind)
    if arr.dtype != want:
        hint = " (ml_dtypes.bfloat16)" if kind == "bfloat16" else ""
        raise TypeError(f"`{name}` must be {kind}{hint}, got {arr.dtype}")
    if not arr.flags.c_contiguous:
        raise ValueError(f"`{name}` must be contiguous (row-major): use np.ascontiguousarray first")
    return arr


def _dims(shapes):
    q, k, v, qo, kv, idx, out, lse = shapes

    def bad(name, want, got):
        return ValueError(f"`{name}` must have shape {want}, got {list(got)}")

    if len(q) != 3 or q[1] != NUM_QO_HEADS or q[2] != HEAD_DIM:
        raise bad("q", "[total_q, 24, 128]", q)
    kv_want = "[num_pages, 1, 4, 128] (or [num_pages, 4, 128])"

    def kv_ok(t):
        return (len(t) == 4 and t[1:] == (1, NUM_KV_HEADS, HEAD_DIM)) or (
            len(t) == 3 and t[1:] == (NUM_KV_HEADS, HEAD_DIM))

    if not kv_ok(k):
        raise bad("k_cache", kv_want, k)
    if not kv_ok(v):
        raise bad("v_cache", kv_want, v)
    if v[0] != k[0]:
        raise ValueError(f"`v_cache` has {v[0]} pages but `k_cache` has {k[0]}: they must match")
    if len(qo) != 1 or qo[0] < 1:
        raise bad("qo_indptr", "[batch + 1] (1-D, at least one entry)", qo)
    if len(kv) != 1 or kv[0] != qo[0]:
        raise ValueError(
            f"`kv_indptr` must be 1-D with as many entries as `qo_indptr` ({qo[0]}), got shape {list(kv)}")
    if len(idx) != 1:
        raise bad("kv_indices", "[num_kv_indices] (1-D)", idx)
    if tuple(out) != tuple(q):
        raise bad("output", f"{list(q)} (that of `q`)", out)
    if len(lse) != 2 or lse[0] != q[0] or lse[1] != NUM_QO_HEADS:
        raise bad("lse", f"[{q[0]}, 24] ([total_q, 24])", lse)
    return (q[0], k[0], qo[0] - 1, idx[0])


def _sm_scale(s):
    if s is None:
        return DEFAULT_SM_SCALE
    try:
        if isinstance(s, (str, bytes)):
            raise TypeError
        v = float(s)
    except (TypeError, ValueError):
        raise TypeError(f"`sm_scale` must be a float, got {type(s).__name__}") from None
    if v != v or v in (float("inf"), float("-inf")):
        raise ValueError(f"`sm_scale` is {v}: it must be finite")
    return v


def run_cpu(q, k_cache, v_cache, qo_indptr, kv_indptr, kv_indices, sm_scale, output, lse):
    """:func:`pagedattn.run` on host memory (called by the native ``run``)."""
    args = (q, k_cache, v_cache, qo_indptr, kv_indptr, kv_indices, output, lse)
    arrs = [_as_numpy(a, n, k) for a, n, k in zip(args, _NAMES, _KINDS)]
    for i in (6, 7):
        if not arrs[i].flags.writeable:
            raise ValueError(f"`{_NAMES[i]}` is read-only: outputs must be writable")
    dims = _dims([a.shape for a in arrs])
    scale = _sm_scale(sm_scale)
    bufs = [(a.__array_interface__["data"][0], a.nbytes) for a in arrs]
    # _cpu_attention checks sizes, alignment and that the outputs alias nothing,
    # then runs without the GIL; `arrs` keeps every buffer alive meanwhile.
    _cpu_attention(dims, bufs, scale)
