#!/usr/bin/env python3
"""The dense anchor of the long rows: PyTorch SDPA with its cuDNN backend on the
same problem without paging, measured like our benchmark (SPEC.md protocol).

Per row: q [B, 24, N, 128] bf16, K and V expanded from 4 to 24 heads and
contiguous (what a dense kernel reads; no page gather), causal. Each timed
call follows an L2 flush (a write of twice the L2 size) and is timed with CUDA
events; median of --reps calls after warm-up. TFLOP/s on causal FLOPs as our
bench counts them: 4 * 128 * 24 * visible query-key pairs (N (N + 1) / 2 per
sequence). The matmul peak (an 8192^3 bf16 matmul) is measured in the same run.
Writes dense_anchor.json under $OUT.
  python3 bench/python/dense_anchor.py [--reps 30] [--rows 8192,16384,32768,16x2048] [--backends cudnn,flash]"""
import argparse
import json
import os
import statistics
import sys
from pathlib import Path

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

DEV = torch.device("cuda", 0)
H_Q, H_KV, D = 24, 4, 128
BACKENDS = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION}


def timed(fn, reps, flush):
    start = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    end = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    for _ in range(3):
        flush()
        fn()
    for i in range(reps):
        flush()
        start[i].record()
        fn()
        end[i].record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) * 1e3 for s, e in zip(start, end))  # us


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--rows", default="8192,16384,32768,16x2048")
    ap.add_argument("--backends", default="cudnn,flash", help="SDPA backends to time, of cudnn,flash")
    args = ap.parse_args()
    labels = args.backends.split(",")
    if unknown := [b for b in labels if b not in BACKENDS]:
        ap.error(f"unknown backend(s) {','.join(unknown)}: choose from {','.join(BACKENDS)}")
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    scratch = torch.empty(2 * l2, dtype=torch.uint8, device=DEV)

    def flush():
        scratch.fill_(1)

    a = torch.randn(8192, 8192, device=DEV, dtype=torch.bfloat16)
    b = torch.randn(8192, 8192, device=DEV, dtype=torch.bfloat16)
    mm_us = timed(lambda: a @ b, 20, lambda: None)
    peak = 2 * 8192**3 / mm_us / 1e6
    del a, b
    res = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__,
           "cudnn": torch.backends.cudnn.version(), "matmul_tflops": peak, "rows": {}}
    print(f"{res['device']} | torch {res['torch']} | cuDNN {res['cudnn']} | matmul peak {peak:.0f} TFLOP/s")
    print("| row | backend | us | TFLOP/s | of matmul peak |\n|---|---|---:|---:|---:|")
    for row in args.rows.split(","):
        batch, n = (int(x) for x in row.split("x")) if "x" in row else (1, int(row))
        g = torch.Generator(device=DEV).manual_seed(n)
        q = torch.randn(batch, H_Q, n, D, generator=g, device=DEV, dtype=torch.bfloat16)
        k = torch.randn(batch, H_KV, n, D, generator=g, device=DEV, dtype=torch.bfloat16)
        v = torch.randn(batch, H_KV, n, D, generator=g, device=DEV, dtype=torch.bfloat16)
        k = k.repeat_interleave(H_Q // H_KV, dim=1).contiguous()
        v = v.repeat_interleave(H_Q // H_KV, dim=1).contiguous()
        flops = 4.0 * D * H_Q * batch * n * (n + 1) / 2
        name = f"scale_single_{n}" if batch == 1 else f"scale_batch{batch}x{n}"
        for label in labels:
            backend = BACKENDS[label]
            try:
                with sdpa_kernel(backend):
                    us = timed(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True), args.reps, flush)
            except Exception as e:  # noqa: BLE001 (a backend may be unavailable)
                print(f"| {name} | {label} | not available: {type(e).__name__} | | |")
                continue
            tf = flops / us / 1e6
            res["rows"].setdefault(name, {})[label] = {"us": us, "tflops": tf}
            print(f"| {name} | {label} | {us:.1f} | {tf:.0f} | {tf / peak:.2f} |")
        del q, k, v
        torch.cuda.empty_cache()
    out = Path(os.environ.get("OUT", "/tmp/out"))
    out.mkdir(parents=True, exist_ok=True)
    (out / "dense_anchor.json").write_text(json.dumps(res, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
