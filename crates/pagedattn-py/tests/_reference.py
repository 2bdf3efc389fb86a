"""An independent naive reference of SPEC.md in numpy (float64), and the
suite's tolerance check, shared by the CPU and GPU tests."""

import json
import math
import os
from pathlib import Path

import numpy as np

H_Q, H_KV, D, GROUP = 24, 4, 128, 6
ATOL = RTOL = 1e-2

_HERE = Path(__file__).resolve()
REPO = _HERE.parents[3] if len(_HERE.parents) > 3 else _HERE.parent
WORKLOADS = Path(os.environ.get("PAGEDATTN_WORKLOADS", REPO / "workloads"))


def reference(q, k_cache, v_cache, qo_indptr, kv_indptr, kv_indices, sm_scale):
    """SPEC.md computed literally: per sequence, per query head, scores in
    float64 over the visible keys (causal, aligned bottom right), base-2 lse;
    rows that see no key get output 0 and lse -inf. Inputs: float arrays
    (already rounded to bf16) q [T, 24, 128], caches [N, 1, 4, 128] or [N, 4, 128]."""
    q = np.asarray(q, dtype=np.float64)
    k = np.asarray(k_cache, dtype=np.float64).reshape(-1, H_KV, D)
    v = np.asarray(v_cache, dtype=np.float64).reshape(-1, H_KV, D)
    qo = [int(x) for x in qo_indptr]
    kv = [int(x) for x in kv_indptr]
    idx = np.asarray(kv_indices, dtype=np.int64)
    total_q = q.shape[0]
    out = np.zeros((total_q, H_Q, D))
    lse = np.full((total_q, H_Q), -np.inf)
    for b in range(len(qo) - 1):
        q0, q1, k0, k1 = qo[b], qo[b + 1], kv[b], kv[b + 1]
        ql, kl = q1 - q0, k1 - k0
        if ql == 0 or kl == 0:
            continue
        pages = idx[k0:k1]
        K, V = k[pages], v[pages]  # [kl, 4, 128]
        delta = kl - ql
        i = np.arange(ql)[:, None]
        j = np.arange(kl)[None, :]
        visible = j <= i + delta  # [ql, kl]
        seen = visible.any(axis=1)
        for h in range(H_Q):
            kh = h // GROUP
            s = sm_scale * (q[q0:q1, h] @ K[:, kh].T)
            s = np.where(visible, s, -np.inf)
            m = np.where(seen, s.max(axis=1), 0.0)
            p = np.where(visible, np.exp(s - m[:, None]), 0.0)
            l = p.sum(axis=1)
            o = (p @ V[:, kh]) / np.where(seen, l, 1.0)[:, None]
            out[q0:q1, h] = np.where(seen[:, None], o, 0.0)
            lse[q0:q1, h] = np.where(seen, (m + np.log(np.where(seen, l, 1.0))) / math.log(2.0), -np.inf)
    return out, lse


def check_close(out, lse, ref_out, ref_lse):
    """SPEC.md's bound: |x - ref| <= 1e-2 + 1e-2 |ref| for the output and every
    finite lse, -inf exactly where the reference has it, no NaN."""
    out = np.asarray(out, dtype=np.float64)
    lse = np.asarray(lse, dtype=np.float64)
    assert out.shape == ref_out.shape and lse.shape == ref_lse.shape
    assert not np.isnan(out).any(), "NaN in output"
    assert not np.isnan(lse).any(), "NaN in lse"
    err = np.abs(out - ref_out)
    bad = err > ATOL + RTOL * np.abs(ref_out)
    assert not bad.any(), f"{int(bad.sum())} output elements out of bound, max err {err.max():.3g}"
    fin = np.isfinite(ref_lse)
    np.testing.assert_array_equal(np.isneginf(lse), ~fin, err_msg="-inf rows differ")
    lerr = np.abs(lse[fin] - ref_lse[fin])
    assert not (lerr > ATOL + RTOL * np.abs(ref_lse[fin])).any(), f"lse out of bound, max err {lerr.max():.3g}"


def load_workloads(name="seed"):
    with open(WORKLOADS / f"{name}.jsonl") as f:
        return [json.loads(line) for line in f if line.strip()]


def make_case(rng, q_lens, kv_lens, num_pages=None, repeat_pages=False):
    """Index arrays for sequences of the given lengths: pages in random
    order (optionally repeated across sequences), int32."""
    assert len(q_lens) == len(kv_lens)
    qo = np.concatenate([[0], np.cumsum(q_lens)]).astype(np.int32)
    kv = np.concatenate([[0], np.cumsum(kv_lens)]).astype(np.int32)
    n_idx = int(kv[-1])
    if num_pages is None:
        num_pages = max(n_idx, 1) + 7
    if repeat_pages:
        idx = rng.integers(0, num_pages, size=n_idx)
    else:
        assert num_pages >= n_idx
        idx = rng.permutation(num_pages)[:n_idx]
    return qo, kv, idx.astype(np.int32), int(qo[-1]), num_pages
