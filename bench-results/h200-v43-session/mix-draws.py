#!/usr/bin/env python3
"""The fortieth session's call 1: calls shaped like wide_prefix3 (a few
sequences of unequal short query counts over a cached prefix of a few
hundred keys; wide_prefix3 is 22, 20 and 2 queries over 289, 440 and 768
keys), pages shuffled, written as JSONL workloads
(h200-v39-session/prefix-draws.py's writer):
    python3 mix-draws.py OUT.jsonl
  mx: 48 calls of 2-5 sequences, each of 1-24 queries (drawn on its own)
  over 150-900 more keys."""
import importlib.util, pathlib, random, sys

HERE = pathlib.Path(__file__).parent
spec = importlib.util.spec_from_file_location("prefix_draws", HERE.parent / "h200-v39-session" / "prefix-draws.py")
prefix_draws = importlib.util.module_from_spec(spec)
spec.loader.exec_module(prefix_draws)


def calls(rng):
    out = []
    for i in range(48):
        b = rng.choice((2, 3, 3, 4, 5))
        qs = [rng.randrange(1, 25) for _ in range(b)]
        ks = [q + rng.randrange(150, 900) for q in qs]
        out.append((f"mx{i}_b{b}_q{max(qs)}_kv{max(ks)}", qs, ks))
    return out


if __name__ == "__main__":
    rng = random.Random(40051)
    prefix_draws.write(sys.argv[1], calls(rng), rng)
