#!/usr/bin/env python3
"""The thirty-seventh session's grids over a cached prefix, pages shuffled,
written as JSONL workloads (prefix-draws.py's writer).
    python3 grids.py dec OUT.jsonl    # grid A: 2-4 sequences of 11/13/15
        queries (jittered within 15%) over 640-2300 keys (within 20%): the
        decode rule keeps m128dv from 11 queries up for more than one
        sequence, where the thirty-fifth session's call 4 timed m64 at
        0.83-0.90 of it (pho6, pho15, pho19)
    python3 grids.py m192 OUT.jsonl   # grid B: one sequence of 192-640
        queries over 2048-5500 keys, exact lengths: m192 was 0.92-0.95 of the
        automatic choice at 256-512 queries over 2432-4480 keys (call 3)"""
import importlib.util, pathlib, random, sys

_spec = importlib.util.spec_from_file_location(
    "prefix_draws", pathlib.Path(__file__).parent.parent / "h200-v39-session" / "prefix-draws.py")
prefix_draws = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(prefix_draws)


def dec(rng):
    calls = []
    for b in (2, 3, 4):
        for q in (11, 13, 15):
            for kv in (640, 900, 1200, 1600, 2000, 2300):
                qs = [max(1, round(q * (1 + rng.uniform(-0.15, 0.15)))) for _ in range(b)]
                ks = [max(x, round(kv * (1 + rng.uniform(-0.2, 0.2)))) for x in qs]
                calls.append((f"gdec_b{b}_q{q}_kv{kv}", qs, ks))
    return calls


def m192(rng):
    return [(f"gm192_q{q}_kv{kv}", [q], [kv]) for q in (192, 256, 320, 384, 448, 512, 640)
            for kv in (2048, 2560, 3072, 3584, 4096, 4608, 5500)]


GRIDS = {"dec": (37011, dec), "m192": (37012, m192)}  # mode: seed, generator

if __name__ == "__main__":
    mode, out = sys.argv[1], sys.argv[2]
    seed, make = GRIDS[mode]
    rng = random.Random(seed)
    prefix_draws.write(out, make(rng), rng)
