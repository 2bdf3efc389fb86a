"""Batched GQA causal prefill attention over a paged KV cache.

The operation ``gqa_paged_prefill_causal_h24_kv4_d128_ps1`` (SPEC.md of the
repository): 24 query heads sharing 4 kv heads, head_dim 128, page_size 1,
bf16 inputs and output, int32 indices, causal mask aligned to the bottom
right, base-2 log-sum-exp. CUDA tensors run the Hopper (sm_90a) kernel, one
launch on torch's current stream with no host synchronisation (capturable in
a CUDA graph); CPU tensors and numpy arrays (bf16 as ``ml_dtypes.bfloat16``)
run the exact CPU backend.

- :func:`run` -- destination passing, the signature of FlashInfer-Bench;
- :func:`attention` -- allocates and returns ``(output, lse)``;
- :func:`run_checked` -- :func:`run` that waits and raises
  :class:`DeviceIndexError` on bad page ids / indptrs in device memory;
- :func:`bind` -- validates a GPU call once; the returned object only
  launches (the lowest host overhead for buffers reused call after call);
- :func:`plan` -- plans calls with given host indptrs once (``run(...,
  plan=p)`` then skips the kernel's own planning step);
- :class:`BatchPrefillWithPagedKVCacheWrapper` -- drop-in for FlashInfer's
  class, for what this operation covers.
"""

from ._native import (
    DEFAULT_SM_SCALE,
    HEAD_DIM,
    NUM_KV_HEADS,
    NUM_QO_HEADS,
    PAGE_SIZE,
    BoundCall,
    DeviceIndexError,
    Plan,
    bind,
    build_info,
    plan,
    prepare,
    run,
    run_dps,
    take_device_errors,
)
from ._api import attention, run_checked
from ._wrapper import BatchPrefillWithPagedKVCacheWrapper

__version__ = build_info()["version"]

__all__ = [
    "run",
    "run_dps",
    "run_checked",
    "bind",
    "BoundCall",
    "plan",
    "Plan",
    "attention",
    "prepare",
    "take_device_errors",
    "build_info",
    "BatchPrefillWithPagedKVCacheWrapper",
    "DeviceIndexError",
    "NUM_QO_HEADS",
    "NUM_KV_HEADS",
    "HEAD_DIM",
    "PAGE_SIZE",
    "DEFAULT_SM_SCALE",
]
