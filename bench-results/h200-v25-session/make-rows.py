#!/usr/bin/env python3
"""Nineteenth session: split tiles of 1-12 queries (the merge by rows), for
the checks and sanitizers of calls 4 and 5.
    python3 make-rows.py dist/rows.jsonl"""
import json, random, sys
r = random.Random(7)
def wl(name, seqs):
    qo, kv = [0], [0]
    for q, k in seqs:
        qo.append(qo[-1] + q); kv.append(kv[-1] + k)
    n = kv[-1]; pages = list(range(n + 100)); r.shuffle(pages)
    return {"name": name, "total_q": qo[-1], "num_pages": len(pages), "qo_indptr": qo, "kv_indptr": kv,
            "kv_indices": pages[:n], "sm_scale": 1 / 128 ** 0.5}
rows = [
    wl("rows_q1_kv5000", [(1, 5000)]),
    wl("rows_q2_kv3000_b3", [(2, 3000), (1, 2500), (2, 40)]),
    wl("rows_mixed_b6", [(1, 4000), (3, 3000), (0, 500), (2, 1), (12, 6000), (1, 0)]),
    wl("rows_q2_kv70000", [(2, 70000)]),
]
with open(sys.argv[1], "w") as f:
    for w in rows: f.write(json.dumps(w) + "\n")
