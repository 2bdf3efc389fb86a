#!/usr/bin/env python3
"""Writes the cached-prefix sweep of the fifth session's calls 6 and 7
(`dist/sweep.jsonl` there; 7 MB, so not committed): twelve calls of 1-16
sequences, 16-1024 queries over 4096-32768 keys each (the queries are the
last keys), pages shuffled, where the estimated-time split and the rule
before it (split tiles longer than 1.5x the mean work per CTA) cut
differently.

    python3 scripts/make-sweep-workloads.py [OUT]          # default dist/sweep.jsonl
    python3 scripts/make-sweep-workloads.py --m64 [OUT]    # fewer than 16 queries per
                                                           # sequence (m64): dist/sweep-m64.jsonl
    python3 scripts/make-sweep-workloads.py --tiles [OUT]  # the sixth session's calls 7-8:
                                                           # dist/tile-sweep.jsonl

--tiles: calls of 1-3 sequences of 256-1280 tokens (kv_len == q_len, and a
few with a short cached prefix), whose m128 tiles fit in about one wave of
CTAs: where the tile configuration for one sequence was measured.
"""
import json
import random
import sys

SHAPES = [(1, 128, 32768), (2, 64, 32768), (1, 256, 8192), (1, 256, 16384), (4, 16, 32768),
          (8, 16, 32768), (16, 16, 16384), (1, 512, 32768), (1, 1024, 8192), (8, 128, 8192),
          (2, 512, 4096), (4, 64, 16384)]  # (sequences, queries, keys)
SHAPES_M64 = [(32, 4, 2048), (8, 1, 16384), (64, 8, 4096), (128, 1, 8192), (16, 4, 32768),
              (4, 8, 16384), (256, 2, 2048), (2, 12, 32768)]
SHAPES_TILES = [(1, L, L) for L in (256, 320, 384, 448, 512, 576, 640, 704, 768, 896, 1024, 1280)] + \
               [(2, 320, 320), (2, 384, 384), (2, 448, 448), (3, 320, 320), (1, 400, 600), (1, 600, 800),
                (2, 300, 500)]


def main():
    args = sys.argv[1:]
    mode = next((a for a in args if a in ("--m64", "--tiles")), "")
    args = [a for a in args if a != mode]
    shapes, default, seed, prefix = {
        "": (SHAPES, "dist/sweep.jsonl", 11, "sweep"),
        "--m64": (SHAPES_M64, "dist/sweep-m64.jsonl", 11, "sweep"),
        "--tiles": (SHAPES_TILES, "dist/tile-sweep.jsonl", 12, "tiles"),
    }[mode]
    out = args[0] if args else default
    rng = random.Random(seed)
    with open(out, "w") as f:
        for b, q, kv in shapes:
            num_pages = b * kv + 1000
            perm = list(range(num_pages))
            rng.shuffle(perm)
            qo, kvp, idx = [0], [0], []
            for s in range(b):
                qo.append(qo[-1] + q)
                kvp.append(kvp[-1] + kv)
                idx += perm[s * kv:(s + 1) * kv]
            w = {"name": f"{prefix}_b{b}_q{q}_kv{kv}", "total_q": qo[-1], "num_pages": num_pages,
                 "qo_indptr": qo, "kv_indptr": kvp, "kv_indices": idx, "sm_scale": 0.08838834764831845}
            f.write(json.dumps(w) + "\n")


if __name__ == "__main__":
    main()
