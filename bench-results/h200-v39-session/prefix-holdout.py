#!/usr/bin/env python3
"""A fresh draw around the few-tiles rule (schedule::M64_FEW_TILES128_MAX,
fitted on prefix-grid.py): 1-4 sequences of 16-160 queries (jittered
within 20%) over a cached prefix making 300-3000 keys a sequence, pages
shuffled; calls on both sides of the rule's bounds.
    python3 prefix-holdout.py OUT.jsonl"""
import json, random, sys
rng = random.Random(93511)
calls = []
for i in range(44):
    b = rng.choice((1, 1, 2, 3, 4))
    q = rng.choice({1: (24, 48, 80, 112, 128, 144, 160), 2: (16, 24, 40, 56, 72), 3: (16, 24, 32, 44), 4: (16, 20, 24, 30)}[b])
    kv = rng.randrange(300, 3000)
    qs = [max(1, round(q * (1 + rng.uniform(-0.2, 0.2)))) for _ in range(b)]
    ks = [max(x, round(kv * (1 + rng.uniform(-0.3, 0.3)))) for x in qs]
    calls.append((f"pho{i}_b{b}_q{q}_kv{kv}", qs, ks))
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
