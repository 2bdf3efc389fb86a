"""A drop-in for ``flashinfer.BatchPrefillWithPagedKVCacheWrapper`` (FlashInfer
0.7.2 signatures) for what this operation covers: 24 query heads, 4 kv heads,
head_dim 128, page_size 1, causal, bf16, NHD layout, base-2 lse in the NH
layout. Anything else raises ``NotImplementedError`` saying what is supported.

Differences from FlashInfer that a caller can see:

- ``plan()`` with CUDA index tensors does no device work and no
  synchronisation: it checks the arguments and keeps references to the
  tensors, and each ``run()`` plans its work units on the device (in
  CUDA-graph mode, ``use_cuda_graph=True`` with ``*_buf`` buffers, it copies
  them into the buffers, as FlashInfer does). With host (CPU) index tensors,
  as FlashInfer's callers often pass them, ``plan()`` copies them to the
  device and makes the work-unit plan there once (``pagedattn.plan``), so
  every ``run()`` of that plan skips the kernel's planning step.
- The workspace buffers are accepted and not used (the kernel keeps its own
  workspace per stream); ``backend`` is accepted and ignored (one kernel).
- ``paged_kv_cache`` as one ``[num_pages, 2, 1, 4, 128]`` tensor costs one
  extra small kernel per ``run()`` (page ids doubled); a ``(k, v)`` tuple is
  the single-launch path.
- ``plan()``'s ``paged_kv_last_page_len`` is not read (page_size 1: every
  page is full).
"""

import math

from ._native import HEAD_DIM, NUM_KV_HEADS, NUM_QO_HEADS, PAGE_SIZE, plan as _native_plan, run as _run

_SUPPORTED = ("pagedattn supports num_qo_heads=24, num_kv_heads=4, head_dim=128, page_size=1, "
              "causal=True, bfloat16 q/kv/output, kv_layout='NHD', no custom mask, no positional "
              "encoding, no sliding window, no logits soft cap, lse in base 2 (or 'ln') and layout 'NH'")


def _unsupported(what):
    return NotImplementedError(f"{what}: {_SUPPORTED}")


def _dtype_name(d):
    if d is None:
        return None
    if isinstance(d, str):
        return {"bf16": "bfloat16", "fp16": "float16", "half": "float16"}.get(d, d)
    s = str(d)  # torch.bfloat16 -> "torch.bfloat16"
    return s[len("torch."):] if s.startswith("torch.") else s


def _on_host(x):
    """Whether an index argument is in host memory (a CPU tensor or a
    sequence), where plan() can read it without synchronising."""
    return not getattr(x, "is_cuda", False) and not hasattr(x, "__cuda_array_interface__")


def _to_device(x, device):
    import torch
    if not isinstance(x, torch.Tensor):
        x = torch.as_tensor(x, dtype=torch.int32)
    return x.to(device=device, dtype=torch.int32)


class BatchPrefillWithPagedKVCacheWrapper:
    """Batched prefill over a paged KV cache, with FlashInfer's ``plan`` /
    ``run`` interface, computed by :func:`pagedattn.run`."""

    def __init__(self, float_workspace_buffer=None, kv_layout="NHD", use_cuda_graph=False,
                 qo_indptr_buf=None, paged_kv_indptr_buf=None, paged_kv_indices_buf=None,
                 paged_kv_last_page_len_buf=None, custom_mask_buf=None, mask_indptr_buf=None,
                 backend="auto", jit_args=None, jit_kwargs=None, variant_owns_mask=False):
        if kv_layout != "NHD":
            raise _unsupported(f"kv_layout={kv_layout!r}")
        if custom_mask_buf is not None or mask_indptr_buf is not None:
            raise _unsupported("custom masks")
        if jit_args is not None or jit_kwargs is not None or variant_owns_mask:
            raise _unsupported("custom JIT variants")
        self._float_workspace_buffer = float_workspace_buffer  # kept for API parity, unused
        self._kv_layout = kv_layout
        self._use_cuda_graph = bool(use_cuda_graph)
        self._qo_indptr_buf = qo_indptr_buf
        self._paged_kv_indptr_buf = paged_kv_indptr_buf
        self._paged_kv_indices_buf = paged_kv_indices_buf
        self._paged_kv_last_page_len_buf = paged_kv_last_page_len_buf
        self._backend = backend
        self._plan = None
        self._host_plan = None

    def _device(self):
        """The CUDA device of this wrapper's calls: the workspace buffer's
        (None for a host buffer: CPU calls), else torch's current one; None
        without CUDA."""
        buf = self._float_workspace_buffer
        if buf is not None:
            return buf.device if getattr(buf, "is_cuda", False) else None
        try:
            import torch
        except ImportError:
            return None
        return torch.device("cuda", torch.cuda.current_device()) if torch.cuda.is_available() else None

    @property
    def is_cuda_graph_enabled(self):
        return self._use_cuda_graph

    def reset_workspace_buffer(self, float_workspace_buffer, int_workspace_buffer=None):
        self._float_workspace_buffer = float_workspace_buffer

    def plan(self, qo_indptr, paged_kv_indptr, paged_kv_indices, paged_kv_last_page_len,
             num_qo_heads, num_kv_heads, head_dim_qk=None, page_size=None, head_dim_vo=None,
             custom_mask=None, packed_custom_mask=None, causal=False, pos_encoding_mode="NONE",
             use_fp16_qk_reduction=False, sm_scale=None, window_left=-1, logits_soft_cap=None,
             rope_scale=None, rope_theta=None, q_data_type="float16", kv_data_type=None,
             o_data_type=None, non_blocking=True, prefix_len_ptr=None,
             token_pos_in_items_ptr=None, token_pos_in_items_len=0, max_item_len_ptr=None,
             seq_lens=None, seq_lens_q=None, block_tables=None, max_token_per_sequence=None,
             max_sequence_kv=None, fixed_split_size=None, disable_split_kv=False,
             uniform_q_len=None, *, head_dim=None):
        """Checks the call's configuration and keeps the index tensors (no
        device work, no synchronisation). ``head_dim`` is accepted as an alias
        of ``head_dim_qk``."""
        if head_dim is not None:
            if head_dim_qk is not None and head_dim_qk != head_dim:
                raise TypeError(f"head_dim={head_dim} and head_dim_qk={head_dim_qk} disagree")
            head_dim_qk = head_dim
        if head_dim_qk is None or page_size is None:
            raise TypeError("plan() needs head_dim_qk (or head_dim) and page_size")
        for what, got, want in (("num_qo_heads", num_qo_heads, NUM_QO_HEADS),
                                ("num_kv_heads", num_kv_heads, NUM_KV_HEADS),
                                ("head_dim_qk", head_dim_qk, HEAD_DIM),
                                ("page_size", page_size, PAGE_SIZE)):
            if int(got) != want:
                raise _unsupported(f"{what}={got}")
        if head_dim_vo is not None and int(head_dim_vo) != HEAD_DIM:
            raise _unsupported(f"head_dim_vo={head_dim_vo}")
        if custom_mask is not None or packed_custom_mask is not None:
            raise _unsupported("custom masks")
        if not causal:
            raise _unsupported("causal=False (FlashInfer's default; pass causal=True)")
        if pos_encoding_mode != "NONE":
            raise _unsupported(f"pos_encoding_mode={pos_encoding_mode!r}")
        if use_fp16_qk_reduction:
            raise _unsupported("use_fp16_qk_reduction=True")
        if window_left is not None and window_left != -1:
            raise _unsupported(f"window_left={window_left}")
        if logits_soft_cap not in (None, 0, 0.0):
            raise _unsupported(f"logits_soft_cap={logits_soft_cap}")
        for what, d in (("q_data_type", q_data_type), ("kv_data_type", kv_data_type),
                        ("o_data_type", o_data_type)):
            name = _dtype_name(d)
            if name is not None and name != "bfloat16":
                raise _unsupported(f"{what}={d}")
        if prefix_len_ptr is not None or token_pos_in_items_ptr is not None or max_item_len_ptr is not None:
            raise _unsupported("multi-item scoring")
        # seq_lens, seq_lens_q, block_tables, max_* , fixed_split_size,
        # disable_split_kv, uniform_q_len, non_blocking, rope_*: hints for
        # other backends or for modes not used here; ignored.
        n_idx = len(paged_kv_indptr)
        if len(qo_indptr) != n_idx:
            raise ValueError(f"qo_indptr has {len(qo_indptr)} entries but paged_kv_indptr has {n_idx}")
        if len(paged_kv_last_page_len) != n_idx - 1:
            raise ValueError(f"paged_kv_last_page_len must have batch = {n_idx - 1} entries, "
                             f"got {len(paged_kv_last_page_len)}")
        if self._use_cuda_graph and self._qo_indptr_buf is not None:
            # CUDA-graph mode: the buffers a captured run() reads get the new contents.
            if len(self._qo_indptr_buf) != n_idx:
                raise ValueError("the batch size is fixed in CUDA-graph mode "
                                 f"(buffers for {len(self._qo_indptr_buf) - 1}, plan for {n_idx - 1})")
            n = len(paged_kv_indices)
            if n > len(self._paged_kv_indices_buf):
                raise ValueError(f"paged_kv_indices has {n} entries, more than its buffer "
                                 f"({len(self._paged_kv_indices_buf)})")
            if qo_indptr is not self._qo_indptr_buf:
                self._qo_indptr_buf.copy_(qo_indptr, non_blocking=non_blocking)
            if paged_kv_indptr is not self._paged_kv_indptr_buf:
                self._paged_kv_indptr_buf.copy_(paged_kv_indptr, non_blocking=non_blocking)
            idx_view = self._paged_kv_indices_buf[:n]
            if paged_kv_indices is not self._paged_kv_indices_buf:
                idx_view.copy_(paged_kv_indices, non_blocking=non_blocking)
            qo_indptr, paged_kv_indptr, paged_kv_indices = (
                self._qo_indptr_buf, self._paged_kv_indptr_buf, idx_view)
        self._host_plan = None
        if not self._use_cuda_graph and _on_host(qo_indptr) and _on_host(paged_kv_indptr):
            device = self._device()
            if device is not None:
                # Host indptrs: plan on the host once (validated there), and
                # keep device copies of the indices for CUDA calls (CPU
                # calls keep using the host tensors).
                self._host_plan = (
                    _native_plan(qo_indptr, paged_kv_indptr, device=device.index),
                    tuple(_to_device(x, device) for x in (qo_indptr, paged_kv_indptr, paged_kv_indices)))
        self._plan = (qo_indptr, paged_kv_indptr, paged_kv_indices,
                      float(sm_scale) if sm_scale is not None else 1.0 / math.sqrt(HEAD_DIM))

    begin_forward = plan

    def end_forward(self):
        pass

    def run(self, q, paged_kv_cache, *args, q_scale=None, k_scale=None, v_scale=None, out=None,
            lse=None, return_lse=False, lse_base="log2", lse_layout="NH", enable_pdl=None,
            window_left=None, sinks=None, kv_cache_sf=None,
            skip_softmax_threshold_scale_factor=None, use_fp16_softmax=None,
            uses_spcompress=None):
        """Attention of ``q`` ``[total_q, 24, 128]`` over ``paged_kv_cache``
        (a ``(k_cache, v_cache)`` tuple of ``[num_pages, 1, 4, 128]``, or one
        ``[num_pages, 2, 1, 4, 128]`` tensor) with the planned indices. Returns
        ``out``, or ``(out, lse)`` with ``return_lse=True``."""
        if self._plan is None:
            raise RuntimeError("plan() must be called before run()")
        if args:
            raise _unsupported("extra positional arguments of custom kernels")
        for what, s in (("q_scale", q_scale), ("k_scale", k_scale), ("v_scale", v_scale)):
            if s is not None and not (isinstance(s, (int, float)) and s == 1):
                raise _unsupported(f"{what} (fp8 calibration scales)")
        if window_left is not None and window_left != -1:
            raise _unsupported(f"window_left={window_left}")
        if sinks is not None:
            raise _unsupported("attention sinks")
        if kv_cache_sf is not None:
            raise _unsupported("NVFP4 kv-cache scale factors")
        if skip_softmax_threshold_scale_factor is not None:
            raise _unsupported("skip-softmax sparsity")
        if lse_layout != "NH":
            raise _unsupported(f"lse_layout={lse_layout!r}")
        if lse_base not in ("log2", "ln"):
            raise _unsupported(f"lse_base={lse_base!r}")
        qo_indptr, kv_indptr, kv_indices, sm_scale = self._plan
        native_plan = None
        if (self._host_plan is not None and getattr(q, "is_cuda", False)
                and q.device.index == self._host_plan[0].device):
            native_plan, (qo_indptr, kv_indptr, kv_indices) = self._host_plan
        if isinstance(paged_kv_cache, (tuple, list)):
            if len(paged_kv_cache) != 2:
                raise ValueError(f"paged_kv_cache as a tuple must be (k_cache, v_cache), got {len(paged_kv_cache)} tensors")
            k_cache, v_cache = paged_kv_cache
        else:
            k_cache, v_cache, kv_indices = self._split_kv(paged_kv_cache, kv_indices)
        import torch

        total_q = q.shape[0]
        if out is None:
            out = torch.empty((total_q, NUM_QO_HEADS, HEAD_DIM), dtype=torch.bfloat16, device=q.device)
        if lse is None:
            lse = torch.empty((total_q, NUM_QO_HEADS), dtype=torch.float32, device=q.device)
        _run(q, k_cache, v_cache, qo_indptr, kv_indptr, kv_indices, sm_scale, out, lse,
             plan=native_plan)
        if not return_lse:
            return out
        if lse_base == "ln":
            lse.mul_(math.log(2.0))
        return out, lse

    def run_return_lse(self, q, paged_kv_cache, *args, **kwargs):
        kwargs["return_lse"] = True
        return self.run(q, paged_kv_cache, *args, **kwargs)

    forward_return_lse = run_return_lse

    @staticmethod
    def _split_kv(cache, kv_indices):
        """One ``[num_pages, 2, 1, 4, 128]`` tensor as k and v views the
        kernel can read (contiguous, page ids doubled): page ``p``'s key row is
        row ``2p`` of a view starting at the tensor, its value row row ``2p``
        of a view starting one row later."""
        shape = tuple(cache.shape)
        if len(shape) != 5 or shape[1:] != (2, PAGE_SIZE, NUM_KV_HEADS, HEAD_DIM):
            raise ValueError(f"paged_kv_cache as one tensor must have shape [num_pages, 2, 1, 4, 128] "
                             f"(NHD), got {list(shape)}")
        if not cache.is_contiguous():
            raise ValueError("paged_kv_cache must be contiguous")
        n = shape[0]
        row = NUM_KV_HEADS * HEAD_DIM
        if not cache.is_cuda:
            # CPU: plain copies (the CPU backend needs separate contiguous caches).
            return cache[:, 0].contiguous(), cache[:, 1].contiguous(), kv_indices
        flat = cache.view(-1)
        rows = max(2 * n - 1, 0)
        k = flat[:rows * row].view(rows, 1, NUM_KV_HEADS, HEAD_DIM)
        v = flat[row:row + rows * row].view(rows, 1, NUM_KV_HEADS, HEAD_DIM) if n else k
        return k, v, kv_indices * 2
