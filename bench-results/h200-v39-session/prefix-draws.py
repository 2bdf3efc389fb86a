#!/usr/bin/env python3
"""The thirty-fifth session's calls over a cached prefix (kv_len > q_len),
pages shuffled, written as JSONL workloads.
    python3 prefix-draws.py grid OUT.jsonl      # call 3: one sequence of 64-640
        queries over a prefix of 256-4096 more keys, and 2-4 sequences of
        12-24 queries over 384 / 768 keys (wide_prefix3's shape); the
        short-sequence thresholds were fitted with kv_len == q_len only
    python3 prefix-draws.py draw1 OUT.jsonl     # call 4: 1-4 sequences of 16-160
        queries (jittered within 20%) over 300-3000 keys, around the
        few-tiles rule (schedule::M64_FEW_TILES128_MAX) at 24 tiles
    python3 prefix-draws.py draw2 OUT.jsonl     # call 5: 18-224 queries over
        500-2500 keys, for the rule widened to 36 tiles
    python3 prefix-draws.py draw3 OUT.jsonl     # call 6: draw2's shapes, another seed"""
import json, random, sys

# draw: seed, calls, name prefix, query choices by sequence count, key range.
DRAWS = {
    "draw1": (93511, 44, "pho", {1: (24, 48, 80, 112, 128, 144, 160), 2: (16, 24, 40, 56, 72),
                                 3: (16, 24, 32, 44), 4: (16, 20, 24, 30)}, (300, 3000)),
    "draw2": (44117, 40, "ph2o", {1: (96, 128, 160, 192, 224), 2: (32, 48, 64, 80, 96),
                                  3: (24, 32, 44, 56), 4: (18, 24, 30, 40)}, (500, 2500)),
    "draw3": (70233, 40, "ph3o", {1: (96, 128, 160, 192, 224), 2: (32, 48, 64, 80, 96),
                                  3: (24, 32, 44, 56), 4: (18, 24, 30, 40)}, (500, 2500)),
}


def grid(rng):
    calls = [(f"pg1_q{q}_kv{q + p}", [q], [q + p]) for q in (64, 128, 256, 384, 512, 640)
             for p in (256, 512, 1024, 2048, 4096)]
    for b in (2, 3, 4):
        for q in (12, 16, 20, 24):
            for kv in (384, 768):
                qs = [max(1, round(q * (1 + rng.uniform(-0.2, 0.2)))) for _ in range(b)]
                ks = [max(x, round(kv * (1 + rng.uniform(-0.4, 0.4)))) for x in qs]
                calls.append((f"pgd_b{b}_q{q}_kv{kv}", qs, ks))
    return calls


def draw(rng, n, prefix, queries, kv_range):
    calls = []
    for i in range(n):
        b = rng.choice((1, 1, 2, 3, 4))
        q = rng.choice(queries[b])
        kv = rng.randrange(*kv_range)
        qs = [max(1, round(q * (1 + rng.uniform(-0.2, 0.2)))) for _ in range(b)]
        ks = [max(x, round(kv * (1 + rng.uniform(-0.3, 0.3)))) for x in qs]
        calls.append((f"{prefix}{i}_b{b}_q{q}_kv{kv}", qs, ks))
    return calls


def write(path, calls, rng):
    with open(path, "w") as f:
        for name, qs, ks in calls:
            num_pages = sum(ks) + 1000
            perm = list(range(num_pages)); rng.shuffle(perm)
            qo, kvp = [0], [0]
            for a, c in zip(qs, ks):
                qo.append(qo[-1] + a); kvp.append(kvp[-1] + c)
            w = {"name": name, "total_q": qo[-1], "num_pages": num_pages, "qo_indptr": qo,
                 "kv_indptr": kvp, "kv_indices": perm[:kvp[-1]], "sm_scale": 0.08838834764831845}
            f.write(json.dumps(w) + "\n")


if __name__ == "__main__":
    mode, out = sys.argv[1], sys.argv[2]
    if mode == "grid":
        rng = random.Random(3507)
        calls = grid(rng)
    else:
        seed, n, prefix, queries, kv_range = DRAWS[mode]
        rng = random.Random(seed)
        calls = draw(rng, n, prefix, queries, kv_range)
    write(out, calls, rng)
