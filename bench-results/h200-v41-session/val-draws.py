#!/usr/bin/env python3
"""The thirty-eighth session's fresh draw for its three rule changes, pages
shuffled, written as JSONL workloads (h200-v39-session/prefix-draws.py's
writer):
    python3 val-draws.py OUT.jsonl
  vA: 2-4 sequences of 11-15 queries over 500-2300 keys (the decode rule's
      m64 for 2-4 sequences, schedule::DECODE_FEW_M64_MAX_BATCH)
  vB: one sequence of 300-560 queries over 4.5-9 keys a query (m192's
      M192_MIN_PREFIX_RATIO 5)
  vC: 3-4 sequences of 18-56 queries over 550-1500 keys (the few-tiles
      rule's 36 tiles for 3-4 sequences, M64_FEW_TILES_3_4_SHORT_KV_LENS)"""
import importlib.util, pathlib, random, sys

_spec = importlib.util.spec_from_file_location(
    "prefix_draws", pathlib.Path(__file__).parent.parent / "h200-v39-session" / "prefix-draws.py")
prefix_draws = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(prefix_draws)


def jitter(rng, x, f):
    return max(1, round(x * (1 + rng.uniform(-f, f))))


def calls(rng):
    out = []
    for i in range(32):
        b, q = rng.choice((2, 3, 4)), rng.choice((11, 12, 13, 14, 15, 15, 15))
        kv = rng.choice((rng.randrange(500, 800), rng.randrange(800, 2300)))
        qs = [jitter(rng, q, 0.1) for _ in range(b)]
        out.append((f"vA{i}_b{b}_q{q}_kv{kv}", qs, [max(x, jitter(rng, kv, 0.2)) for x in qs]))
    for i in range(24):
        q = rng.randrange(300, 560)
        kv = round(q * rng.uniform(4.5, 9))
        out.append((f"vB{i}_b1_q{q}_kv{kv}", [q], [kv]))
    for i in range(16):
        b, q, kv = rng.choice((3, 4)), rng.choice((18, 24, 30, 40, 48, 56)), rng.randrange(550, 1500)
        qs = [jitter(rng, q, 0.2) for _ in range(b)]
        out.append((f"vC{i}_b{b}_q{q}_kv{kv}", qs, [max(x, jitter(rng, kv, 0.3)) for x in qs]))
    return out


if __name__ == "__main__":
    rng = random.Random(38041)
    prefix_draws.write(sys.argv[1], calls(rng), rng)
