#!/usr/bin/env python3
"""Decode-like calls of 1-2 sequences of 11-15 queries over 512-6000 keys
(exact lengths, pages shuffled), for the decode rule's m128dv side at small
batches (thirtieth session, call 7).  python3 mid-q-grid.py OUT.jsonl"""
import json, random, sys
rng = random.Random(163)
with open(sys.argv[1], "w") as f:
    for b in (1, 2):
        for q in (11, 12, 13, 14, 15):
            for kv in (512, 640, 768, 1024, 1536, 2048, 3000, 4096, 6000):
                n = b * kv + 1000
                perm = list(range(n)); rng.shuffle(perm)
                w = {"name": f"midq_b{b}_q{q}_kv{kv}", "total_q": b * q, "num_pages": n,
                     "qo_indptr": [i * q for i in range(b + 1)], "kv_indptr": [i * kv for i in range(b + 1)],
                     "kv_indices": perm[:b * kv], "sm_scale": 0.08838834764831845}
                f.write(json.dumps(w) + "\n")
