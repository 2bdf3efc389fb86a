#!/usr/bin/env python3
"""Eighteenth session: the five decode-like cached-prefix rows (16-64 queries
over 4096-16384 keys) as they are (scattered page ids), and each again with
its pages in key order (`_seqpages`), to separate the page order's cost
(DRAM row locality of 256-byte rows) from the rest.
    python3 make-decode-workloads.py OUT.jsonl"""
import json, sys
names = ["prefix_q16_kv4096_b8", "prefix_q32_kv4096_b8", "prefix_q64_kv4096_b4",
         "prefix_q32_kv16384_b2", "prefix_b1_q64_kv16384"]
rows = {}
for f in ["workloads/prefix.jsonl", "workloads/shapes.jsonl"]:
    for line in open(f):
        d = json.loads(line)
        if d["name"] in names:
            rows[d["name"]] = d
with open(sys.argv[1], "w") as out:
    for n in names:
        out.write(json.dumps(rows[n]) + "\n")
    for n in names:
        d = dict(rows[n], name=n + "_seqpages")
        d["kv_indices"] = list(range(len(d["kv_indices"])))
        out.write(json.dumps(d) + "\n")
