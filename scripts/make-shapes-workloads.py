#!/usr/bin/env python3
"""Writes workloads/shapes.jsonl: call shapes the seed and scale sets do not
have (cached prefixes, q_len > kv_len, empty sequences, hundreds of tiny
sequences, pages in order, reversed and repeated), for benchmarking the
kernel beyond its seed file. Deterministic (fixed seed)."""
import json, math, random, sys
from pathlib import Path

rng = random.Random(20261201)
SCALE = 1 / math.sqrt(128)


def workload(name, seqs, order="scattered"):
    """seqs: list of (q_len, kv_len). Page ids per `order`."""
    qo, kv = [0], [0]
    for q, k in seqs:
        qo.append(qo[-1] + q)
        kv.append(kv[-1] + k)
    n = kv[-1]
    if order == "scattered":
        pages = list(range(n + n // 8 + 1))
        rng.shuffle(pages)
        idx = pages[:n]
        num_pages = len(pages)
    elif order == "sequential":
        idx, num_pages = list(range(n)), n
    elif order == "reversed":
        idx, num_pages = list(range(n))[::-1], n
    elif order == "repeated":  # every sequence reads the same few hundred pages
        num_pages = 512
        idx = [rng.randrange(num_pages) for _ in range(n)]
    return {"name": name, "total_q": qo[-1], "num_pages": max(num_pages, 1), "qo_indptr": qo,
            "kv_indptr": kv, "kv_indices": idx, "sm_scale": SCALE}


out = [
    workload("prefix_b4_q128_kv4096", [(128, 4096)] * 4),
    workload("prefix_b1_q64_kv16384", [(64, 16384)]),
    workload("prefix_b16_q256_kv2048", [(256, 2048)] * 16),
    workload("prefix_b8_mixed", [(rng.randint(16, 400), rng.randint(1000, 6000)) for _ in range(8)]),
    workload("tiny_b300_q1-16", [(q, q + rng.randint(0, 200)) for q in (rng.randint(1, 16) for _ in range(300))]),
    workload("tiny_b500_q4_kv64", [(4, 64)] * 500),
    workload("tiny_b128_q1_kv512", [(1, 512)] * 128),
    workload("empty_and_short_b40", [(0 if i % 3 == 0 else rng.randint(1, 300),
                                      rng.randint(0, 400)) for i in range(40)]),
    workload("q_gt_kv_b8", [(600, rng.randint(0, 300)) for _ in range(8)]),
    workload("seq2048_pages_sequential", [(2048, 2048)], "sequential"),
    workload("seq2048_pages_reversed", [(2048, 2048)], "reversed"),
    workload("b16x512_pages_repeated", [(512, 512)] * 16, "repeated"),
]
path = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent / "workloads" / "shapes.jsonl")
with open(path, "w") as f:
    for w in out:
        f.write(json.dumps(w, separators=(",", ":")) + "\n")
print(f"{path}: {len(out)} workloads")

# workloads/prefix.jsonl: cached prefixes (kv_len well above q_len), for the
# tile-configuration and split choices of such calls.
prefix = []
for q, k, b in [(16, 4096, 8), (32, 4096, 8), (64, 4096, 4), (128, 4096, 4), (256, 4096, 2),
                (512, 4096, 2), (64, 1024, 16), (128, 1024, 16), (256, 1024, 8), (128, 16384, 1),
                (512, 16384, 1), (32, 16384, 2), (1000, 8000, 1)]:
    prefix.append(workload(f"prefix_q{q}_kv{k}_b{b}", [(q, k)] * b))
prefix.append(workload("prefix_mixed_b32", [(rng.randint(1, 256), rng.randint(500, 4000)) for _ in range(32)]))
with open(path.parent / "prefix.jsonl", "w") as f:
    for w in prefix:
        f.write(json.dumps(w, separators=(",", ":")) + "\n")
print(f"{path.parent / 'prefix.jsonl'}: {len(prefix)} workloads")
