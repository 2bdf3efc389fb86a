#!/usr/bin/env python3
"""Writes the cached-prefix sweep of the fifth session's calls 6 and 7
(`dist/sweep.jsonl` there; 7 MB, so not committed): twelve calls of 1-16
sequences, 16-1024 queries over 4096-32768 keys each (the queries are the
last keys), pages shuffled, where the estimated-time split and the rule
before it (split tiles longer than 1.5x the mean work per CTA) cut
differently.

    python3 scripts/make-sweep-workloads.py [OUT]          # default dist/sweep.jsonl
    python3 scripts/make-sweep-workloads.py --m64 [OUT]    # fewer than 16 queries per
                                                           # sequence (m64): dist/sweep-m64.jsonl
"""
import json
import random
import sys

SHAPES = [(1, 128, 32768), (2, 64, 32768), (1, 256, 8192), (1, 256, 16384), (4, 16, 32768),
          (8, 16, 32768), (16, 16, 16384), (1, 512, 32768), (1, 1024, 8192), (8, 128, 8192),
          (2, 512, 4096), (4, 64, 16384)]  # (sequences, queries, keys)
SHAPES_M64 = [(32, 4, 2048), (8, 1, 16384), (64, 8, 4096), (128, 1, 8192), (16, 4, 32768),
              (4, 8, 16384), (256, 2, 2048), (2, 12, 32768)]


def main():
    args = sys.argv[1:]
    m64 = "--m64" in args
    args = [a for a in args if a != "--m64"]
    out = args[0] if args else ("dist/sweep-m64.jsonl" if m64 else "dist/sweep.jsonl")
    rng = random.Random(11)
    with open(out, "w") as f:
        for b, q, kv in SHAPES_M64 if m64 else SHAPES:
            num_pages = b * kv + 1000
            perm = list(range(num_pages))
            rng.shuffle(perm)
            qo, kvp, idx = [0], [0], []
            for s in range(b):
                qo.append(qo[-1] + q)
                kvp.append(kvp[-1] + kv)
                idx += perm[s * kv:(s + 1) * kv]
            w = {"name": f"sweep_b{b}_q{q}_kv{kv}", "total_q": qo[-1], "num_pages": num_pages,
                 "qo_indptr": qo, "kv_indptr": kvp, "kv_indices": idx, "sm_scale": 0.08838834764831845}
            f.write(json.dumps(w) + "\n")


if __name__ == "__main__":
    main()
