#!/usr/bin/env python3
"""Does a row's time depend on where its buffers land in device memory?

The same build and the same inputs took 657-728 us (scale_single_8192) and
759-873 us (scale_batch16x2048) in different processes at steady clocks.
Here one process allocates each row's buffers afresh many times (torch's
caching allocator off: set PYTORCH_NO_CUDA_MEMORY_CACHING=1, which this
script does before importing torch), with a padding allocation of a random
size before each set so that the buffers move, and times each placement like
the benchmark (L2 flushed before every call, CUDA events, median).
Prints one line per placement: the K cache's address (mod 2 MiB and its
2 MiB page), the padding and the time.
  python3 bench/python/placement_probe.py [--workloads workloads/scale.jsonl]
      [--rows scale_single_8192,scale_batch16x2048] [--placements 12] [--reps 15]"""
import argparse
import json
import os
import random

os.environ.setdefault("PYTORCH_NO_CUDA_MEMORY_CACHING", "1")

import torch  # noqa: E402

import pagedattn  # noqa: E402
from dense_anchor import timed  # noqa: E402  (the same flush-and-events timing)

DEV = torch.device("cuda", 0)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workloads", default="workloads/scale.jsonl")
    ap.add_argument("--rows", default="scale_single_8192,scale_batch16x2048")
    ap.add_argument("--placements", type=int, default=12)
    ap.add_argument("--reps", type=int, default=15)
    a = ap.parse_args()
    rows = {}
    for line in open(a.workloads):
        w = json.loads(line)
        if w["name"] in a.rows.split(","):
            rows[w["name"]] = w
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    scratch = torch.empty(2 * l2, dtype=torch.uint8, device=DEV)
    rng = random.Random(1)
    pads = []
    print("| row | placement | pad MiB | k_cache % 2MiB | k_cache 2MiB page | us |\n|---|---:|---:|---:|---:|---:|")
    for i in range(a.placements):
        for name, w in rows.items():
            pads.append(torch.empty(rng.randrange(0, 256) * (1 << 21) + rng.randrange(0, 1 << 21),
                                    dtype=torch.uint8, device=DEV))
            g = torch.Generator(device=DEV).manual_seed(7)
            tq, npg = w["total_q"], w["num_pages"]
            q = torch.randn(tq, 24, 128, generator=g, device=DEV).to(torch.bfloat16)
            k = torch.randn(npg, 1, 4, 128, generator=g, device=DEV).to(torch.bfloat16)
            v = torch.randn(npg, 1, 4, 128, generator=g, device=DEV).to(torch.bfloat16)
            qo = torch.tensor(w["qo_indptr"], dtype=torch.int32, device=DEV)
            kv = torch.tensor(w["kv_indptr"], dtype=torch.int32, device=DEV)
            idx = torch.tensor(w["kv_indices"], dtype=torch.int32, device=DEV)
            out = torch.empty(tq, 24, 128, dtype=torch.bfloat16, device=DEV)
            lse = torch.empty(tq, 24, dtype=torch.float32, device=DEV)
            fn = pagedattn.bind(q, k, v, qo, kv, idx, w["sm_scale"], out, lse)

            us = timed(fn, a.reps, lambda: scratch.fill_(1))
            p = k.data_ptr()
            print(f"| {name} | {i} | {pads[-1].numel() / 2**20:.1f} | {p % (1 << 21)} | {p >> 21} | {us:.1f} |",
                  flush=True)
            del q, k, v, qo, kv, idx, out, lse, fn


if __name__ == "__main__":
    main()
