#!/usr/bin/env python3
"""Writes workloads/split.jsonl: small calls the automatic split cuts into
chunks (cached prefixes of 2048 keys under 4-16 queries; 1-2 queries over
up to 5000 keys, whose tiles merge by rows), in both tile configurations
and both device plans (one warp up to 32 sequences, the whole CTA above):
for the sanitizers and the GPU tests of the merge path.

    python3 scripts/make-split-workloads.py [OUT]   # default workloads/split.jsonl

Which calls split is decided by the plan (src/units.rs, auto_chunk): with 132
m128 / 264 m64 CTAs, all five do (chunks of 8, 8, 16, 20 and 16 blocks).
"""
import json
import random
import sys


def workload(name, seqs, num_pages, rng):
    qo, kv, idx = [0], [0], []
    for q, k in seqs:
        qo.append(qo[-1] + q)
        kv.append(kv[-1] + k)
        idx += [rng.randrange(num_pages) for _ in range(k)]
    return {"name": name, "total_q": qo[-1], "num_pages": num_pages, "qo_indptr": qo,
            "kv_indptr": kv, "kv_indices": idx, "sm_scale": 0.08838834764831845}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "workloads/split.jsonl"
    rng = random.Random(7)
    ws = [
        workload("split_q16_kv2048_b1", [(16, 2048)], 4096, rng),           # m128, warp plan
        workload("split_q16_kv2048_b8", [(16, 2048)] * 7 + [(40, 1800)], 8192, rng),
        workload("split_q4_kv2048_b33", [(4, 2048)] * 32 + [(0, 0)], 8192, rng),  # m64, CTA plan
        # m64, merged by rows (at most 2 queries a sequence).
        workload("split_q1_kv5000_b1", [(1, 5000)], 8192, rng),
        workload("split_q1-2_b6", [(1, 4000), (2, 3000), (0, 500), (2, 1), (1, 0), (2, 2600)], 16384, rng),
    ]
    with open(out, "w") as f:
        for w in ws:
            f.write(json.dumps(w) + "\n")


if __name__ == "__main__":
    main()
