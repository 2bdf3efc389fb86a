"""Convenience calls built on :func:`pagedattn.run`."""

from ._native import NUM_QO_HEADS, HEAD_DIM, run


def run_checked(q, k_cache, v_cache, qo_indptr, kv_indptr, kv_indices, sm_scale,
                output, lse, *, stream=None):
    """:func:`pagedattn.run` that waits for the kernel and raises
    :class:`pagedattn.DeviceIndexError` if it met a page id outside
    ``[0, num_pages)`` or an inconsistent indptr in device memory (on the GPU,
    index contents are never read by the host). Not capturable. The error flag
    is per stream: it also reports bad data seen by earlier unchecked calls
    on that stream since the last check. On CPU inputs it is :func:`run`
    (which validates every index on the host)."""
    run(q, k_cache, v_cache, qo_indptr, kv_indptr, kv_indices, sm_scale, output, lse,
        stream=stream, checked=True)


def _is_torch(x):
    t = type(x)
    return t.__module__.startswith("torch") and hasattr(x, "data_ptr")


def attention(q, k_cache, v_cache, qo_indptr, kv_indptr, kv_indices, sm_scale=None, *,
              stream=None, checked=False):
    """Computes the operation and returns ``(output, lse)``: ``output``
    ``[total_q, 24, 128]`` bf16 and ``lse`` ``[total_q, 24]`` float32 (base 2,
    ``-inf`` for rows that see no key), allocated like ``q`` (same device, or
    numpy arrays for numpy input). ``sm_scale`` defaults to ``1/sqrt(128)``."""
    shape = getattr(q, "shape", None)
    if shape is None or len(shape) < 1:
        raise TypeError(f"`q` must be a tensor or array of shape [total_q, 24, 128], got {type(q).__name__}")
    total_q = int(shape[0])
    if _is_torch(q):
        import torch

        def alloc():
            out = torch.empty((total_q, NUM_QO_HEADS, HEAD_DIM), dtype=torch.bfloat16, device=q.device)
            lse = torch.empty((total_q, NUM_QO_HEADS), dtype=torch.float32, device=q.device)
            return out, lse

        if q.is_cuda and stream is not None:
            # Allocate on the stream that writes them (torch's allocator rule).
            from ._torch_support import torch_stream

            with torch.cuda.stream(torch_stream(stream, q.device)):
                out, lse = alloc()
        else:
            out, lse = alloc()
    else:
        import numpy as np
        from ._cpu import bf16_dtype

        out = np.empty((total_q, NUM_QO_HEADS, HEAD_DIM), dtype=bf16_dtype())
        lse = np.empty((total_q, NUM_QO_HEADS), dtype=np.float32)
    run(q, k_cache, v_cache, qo_indptr, kv_indptr, kv_indices, sm_scale, out, lse,
        stream=stream, checked=checked)
    return out, lse
