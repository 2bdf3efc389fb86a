#!/usr/bin/env python3
"""Writes workloads/shapes.jsonl: call shapes the seed and scale sets do not
have (cached prefixes, q_len > kv_len, empty sequences, hundreds of tiny
sequences, pages in order, reversed and repeated), for benchmarking the
kernel beyond its seed file, and workloads/prefix.jsonl. Deterministic
(fixed seed).

  --serving PATH: writes only the serving set instead (its own seed; not
  tracked, ~6 MB): decode-like calls (1-32 queries over 1k-64k keys, one
  sequence or hundreds), chunked prefill, a long prompt batched with a hundred
  one-query sequences, thousands of tiny sequences, mostly-empty batches.
  scripts/dist.sh writes it to dist/serving.jsonl.

  --wide PATH: writes only the wide draw instead (its own seed; not tracked,
  generated where it runs): 40 random calls over the classes a serving
  engine sends (prefills, cached prefixes, decode and speculative steps,
  hundreds of tiny sequences, empty sequences and q_len > kv_len), a fifth
  of them with pages in key order, reversed, repeated or in runs, for
  checking the kernel against FlashInfer beyond the sets it was tuned on."""
import json, math, random, sys
from pathlib import Path

rng = random.Random(20261201)
SCALE = 1 / math.sqrt(128)


def workload(name, seqs, order="scattered", rng=rng):
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
    elif order == "runs":  # an allocator's free list: runs of 16-256 consecutive pages, runs shuffled
        num_pages = n + n // 8 + 1
        starts, at = [], 0
        while at < num_pages:
            ln = rng.randint(16, 256)
            starts.append((at, min(ln, num_pages - at)))
            at += ln
        rng.shuffle(starts)
        idx = [a + i for a, ln in starts for i in range(ln)][:n]
    return {"name": name, "total_q": qo[-1], "num_pages": max(num_pages, 1), "qo_indptr": qo,
            "kv_indptr": kv, "kv_indices": idx, "sm_scale": SCALE}


if len(sys.argv) == 3 and sys.argv[1] == "--wide":
    r = random.Random(20261203)
    lu = lambda lo, hi: int(round(math.exp(r.uniform(math.log(lo), math.log(hi)))))
    calls = []
    for i in range(8):  # prefills, no cached prefix
        b = lu(1, 48)
        calls.append((f"wide_prefill{i}", [(q, q) for q in (lu(20, 4000 // max(1, b // 4)) for _ in range(b))]))
    for i in range(10):  # cached prefixes: a few to hundreds of queries over a longer prefix
        b = lu(1, 32)
        calls.append((f"wide_prefix{i}", [(q, q + lu(256, 16384)) for q in (lu(1, 512) for _ in range(b))]))
    for i in range(6):  # decode and speculative steps
        b, q = lu(8, 256), lu(1, 8)
        kv = lu(512, max(513, 400000 // b))
        calls.append((f"wide_decode{i}", [(q, max(q, int(kv * r.uniform(0.7, 1.3)))) for _ in range(b)]))
    for i in range(5):  # hundreds of tiny sequences
        b = r.randint(200, 1000)
        calls.append((f"wide_tiny{i}", [(q, q + r.randint(0, 300)) for q in (r.randint(1, 16) for _ in range(b))]))
    for i in range(5):  # empty sequences and q_len > kv_len among ordinary ones
        b = r.randint(4, 64)
        seqs = []
        for _ in range(b):
            kind = r.random()
            q = lu(1, 600)
            if kind < 0.3:
                seqs.append((0, r.randint(0, 500)))
            elif kind < 0.6:
                seqs.append((q, r.randint(0, q)))
            else:
                seqs.append((q, q + r.randint(0, 2000)))
        calls.append((f"wide_mixed{i}", seqs))
    orders = ["sequential", "reversed", "repeated", "runs", "runs", "runs"]
    out = [workload(n, s, rng=r) for n, s in calls]
    for i, o in enumerate(orders):  # six of the calls above again, pages in another order
        n, s = calls[(7 * i + 3) % len(calls)]
        out.append(workload(f"{n}_{o}", s, o, rng=r))
    with open(sys.argv[2], "w") as f:
        for w in out:
            f.write(json.dumps(w, separators=(",", ":")) + "\n")
    print(f"{sys.argv[2]}: {len(out)} workloads")
    sys.exit(0)

if len(sys.argv) == 3 and sys.argv[1] == "--serving":
    r = random.Random(20261202)
    log_uniform = lambda lo, hi: int(round(math.exp(r.uniform(math.log(lo), math.log(hi)))))
    serving = [
        workload("long_b1_q1_kv32768", [(1, 32768)], rng=r),
        workload("long_b1_q8_kv65536", [(8, 65536)], rng=r),
        workload("long_b2_q32_kv32768", [(32, 32768)] * 2, rng=r),
        workload("decode_b64_q1_kv4096", [(1, 4096)] * 64, rng=r),
        workload("decode_b256_q1_kv1024", [(1, 1024)] * 256, rng=r),
        workload("spec_b32_q4_kv8192", [(4, 8192)] * 32, rng=r),
        workload("chunked_b4_q512_kv8192", [(512, 8192)] * 4, rng=r),
        workload("serving_mix_b101", [(2000, 2000)] + [(1, r.randint(500, 3000)) for _ in range(100)], rng=r),
        workload("tiny_b1000_q1-4", [(q, q + r.randint(0, 124)) for q in (r.randint(1, 4) for _ in range(1000))], rng=r),
        workload("one_token", [(1, 1)], rng=r),
        workload("mostly_empty_b100", [(0, r.randint(0, 500)) if i % 10 else (50, 300) for i in range(100)], rng=r),
        workload("q_gt_kv_b4_q1000_kv10", [(1000, 10)] * 4, rng=r),
        workload("prefix_b8_q100-300_kv8k-12k", [(r.randint(100, 300), r.randint(8000, 12000)) for _ in range(8)], rng=r),
        workload("random_b32_q1-64_kv1-16k", [(q, max(q, log_uniform(1, 16384))) for q in (r.randint(1, 64) for _ in range(32))], rng=r),
        workload("decode_b16_q1_kv16384_sequential", [(1, 16384)] * 16, "sequential", rng=r),
    ]
    with open(sys.argv[2], "w") as f:
        for w in serving:
            f.write(json.dumps(w, separators=(",", ":")) + "\n")
    print(f"{sys.argv[2]}: {len(serving)} workloads")
    sys.exit(0)

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
