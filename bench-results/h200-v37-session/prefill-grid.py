#!/usr/bin/env python3
"""Prefill calls near the tile configuration's thresholds for short
sequences (schedule::M64_MAX_SINGLE_KV_LEN, fitted in the sixth session;
M64_MAX_MEAN_Q_LEN, v7): one sequence of 256-1536 tokens, exact lengths,
and 2-8 sequences of 160-512 tokens on average, lengths within 10%
(kv_len == q_len), pages shuffled (thirty-first session, call 1).
    python3 prefill-grid.py OUT.jsonl"""
import json, random, sys
rng = random.Random(1931)
shapes = [(1, n) for n in (256, 320, 384, 448, 512, 559, 576, 640, 704, 768, 896, 1024, 1280, 1536)]
shapes += [(b, n) for b in (2, 3, 4, 6, 8) for n in (160, 224, 288, 320, 352, 416, 512)]
with open(sys.argv[1], "w") as f:
    for b, n in shapes:
        ls = [n] * b if b == 1 else [max(1, round(n * (1 + rng.uniform(-0.1, 0.1)))) for _ in range(b)]
        num_pages = sum(ls) + 1000
        perm = list(range(num_pages)); rng.shuffle(perm)
        ind = [0]
        for x in ls: ind.append(ind[-1] + x)
        w = {"name": f"pgrid_b{b}_n{n}", "total_q": ind[-1], "num_pages": num_pages,
             "qo_indptr": ind, "kv_indptr": ind, "kv_indices": perm[:ind[-1]], "sm_scale": 0.08838834764831845}
        f.write(json.dumps(w) + "\n")
