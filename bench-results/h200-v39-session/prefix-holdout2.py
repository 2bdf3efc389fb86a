#!/usr/bin/env python3
"""A second fresh draw, for the few-tiles rule widened from 24 to 36
tiles after call 4 (call 5): 1-4 sequences of 18-224 queries (jittered
within 20%) over 500-2500 keys a sequence, pages shuffled.
    python3 prefix-holdout2.py OUT.jsonl"""
import json, random, sys
rng = random.Random(44117)
calls = []
for i in range(40):
    b = rng.choice((1, 1, 2, 3, 4))
    q = rng.choice({1: (96, 128, 160, 192, 224), 2: (32, 48, 64, 80, 96), 3: (24, 32, 44, 56), 4: (18, 24, 30, 40)}[b])
    kv = rng.randrange(500, 2500)
    qs = [max(1, round(q * (1 + rng.uniform(-0.2, 0.2)))) for _ in range(b)]
    ks = [max(x, round(kv * (1 + rng.uniform(-0.3, 0.3)))) for x in qs]
    calls.append((f"ph2o{i}_b{b}_q{q}_kv{kv}", qs, ks))
with open(sys.argv[1], "w") as f:
    for name, qs, ks in calls:
        num_pages = sum(ks) + 1000
        perm = list(range(num_pages)); rng.shuffle(perm)
        qo, kvp = [0], [0]
        for a, c in zip(qs, ks):
            qo.append(qo[-1] + a); kvp.append(kvp[-1] + c)
        w = {"name": name, "total_q": qo[-1], "num_pages": num_pages, "qo_indptr": qo,
             "kv_indptr": kvp, "kv_indices": perm[:kvp[-1]], "sm_scale": 0.08838834764831845}
        f.write(json.dumps(w) + "\n")
