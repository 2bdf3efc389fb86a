#!/usr/bin/env python3
"""Writes the tile-configuration sweep of the sixth session's call 7
(`dist/tile-sweep.jsonl`): calls of 1-3 sequences of 256-1280 tokens
(kv_len == q_len, and a few with a short cached prefix), pages shuffled:
the calls whose m128 tiles fit in one wave of CTAs, where the automatic
choice takes m128 by mean lengths while m64's finer tiles would fill the
idle SMs.

    python3 scripts/make-tile-sweep-workloads.py [OUT]   # default dist/tile-sweep.jsonl
"""
import json
import random
import sys

SHAPES = [(1, L, L) for L in (256, 320, 384, 448, 512, 576, 640, 704, 768, 896, 1024, 1280)] + \
         [(2, 320, 320), (2, 384, 384), (2, 448, 448), (3, 320, 320), (1, 400, 600), (1, 600, 800),
          (2, 300, 500)]  # (sequences, queries, keys)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "dist/tile-sweep.jsonl"
    rng = random.Random(12)
    with open(out, "w") as f:
        for b, q, kv in SHAPES:
            num_pages = b * kv + 1000
            perm = list(range(num_pages))
            rng.shuffle(perm)
            qo, kvp, idx = [0], [0], []
            for s in range(b):
                qo.append(qo[-1] + q)
                kvp.append(kvp[-1] + kv)
                idx += perm[s * kv:(s + 1) * kv]
            w = {"name": f"tiles_b{b}_q{q}_kv{kv}", "total_q": qo[-1], "num_pages": num_pages,
                 "qo_indptr": qo, "kv_indptr": kvp, "kv_indices": idx, "sm_scale": 0.08838834764831845}
            f.write(json.dumps(w) + "\n")


if __name__ == "__main__":
    main()
