#!/usr/bin/env python3
"""Short prefills over a cached prefix (kv_len > q_len), the calls the
tile configuration's short-sequence thresholds were not fitted on (those
were fitted with kv_len == q_len, prefill-grid.py of h200-v37-session):
one sequence of 64-640 queries over a prefix of 256-4096 keys, and 2-4
sequences of 12-24 queries over 256-1024 keys (wide_prefix3's shape, the
one wide-draw row above FlashInfer in the thirty-fifth session's table),
pages shuffled.
    python3 prefix-grid.py OUT.jsonl"""
import json, random, sys
rng = random.Random(3507)
shapes = [("pg1", [q], [q + p]) for q in (64, 128, 256, 384, 512, 640) for p in (256, 512, 1024, 2048, 4096)]
for b in (2, 3, 4):
    for q in (12, 16, 20, 24):
        for kv in (384, 768):
            qs = [max(1, round(q * (1 + rng.uniform(-0.2, 0.2)))) for _ in range(b)]
            ks = [max(x, round(kv * (1 + rng.uniform(-0.4, 0.4)))) for x in qs]
            shapes.append((f"pgd_b{b}_q{q}_kv{kv}", qs, ks))
with open(sys.argv[1], "w") as f:
    for name, qs, ks in shapes:
        if name == "pg1":
            name = f"pg1_q{qs[0]}_kv{ks[0]}"
        num_pages = sum(ks) + 1000
        perm = list(range(num_pages)); rng.shuffle(perm)
        qo, kvp = [0], [0]
        for a, b in zip(qs, ks):
            qo.append(qo[-1] + a); kvp.append(kvp[-1] + b)
        w = {"name": name, "total_q": qo[-1], "num_pages": num_pages, "qo_indptr": qo,
             "kv_indptr": kvp, "kv_indices": perm[:kvp[-1]], "sm_scale": 0.08838834764831845}
        f.write(json.dumps(w) + "\n")
