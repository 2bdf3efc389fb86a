#!/usr/bin/env python3
"""The forty-second session: calls shaped like vI21 (a few sequences of
1-4 queries over a few hundred keys: vI21 is 3, 3, 3 and 2 queries over
486-514 keys, 1.20 of FlashInfer's time), pages shuffled, written as JSONL
workloads (h200-v39-session/prefix-draws.py's writer):
    python3 tiny-draws.py OUT.jsonl
  ti: 48 calls of 1-6 sequences, each of 1-4 queries over 250-1000 keys."""
import importlib.util, pathlib, random, sys

HERE = pathlib.Path(__file__).parent
spec = importlib.util.spec_from_file_location("prefix_draws", HERE.parent / "h200-v39-session" / "prefix-draws.py")
prefix_draws = importlib.util.module_from_spec(spec)
spec.loader.exec_module(prefix_draws)


def calls(rng):
    out = []
    for i in range(48):
        b = rng.choice((1, 2, 3, 4, 4, 5, 6))
        qs = [rng.randrange(1, 5) for _ in range(b)]
        base = rng.randrange(250, 1000)
        ks = [max(q, base + rng.randrange(-40, 40)) for q in qs]
        out.append((f"ti{i}_b{b}_q{max(qs)}_kv{max(ks)}", qs, ks))
    return out


if __name__ == "__main__":
    rng = random.Random(42042)
    prefix_draws.write(sys.argv[1], calls(rng), rng)
