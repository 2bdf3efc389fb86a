#!/usr/bin/env python3
"""The fortieth session's call 2: a fresh draw around the two changes of
this session (m64 for 2-5 decode-like sequences wherever its split cuts a
tile; the short fine split), pages shuffled, written as JSONL workloads
(h200-v39-session/prefix-draws.py's writer):
    python3 val-draws.py OUT.jsonl
  vG: 40 calls of 2-5 sequences of 9-16 queries (jittered within 10%) over
      300-2048 keys (within 20%; half of them up to 700);
  vH: 40 calls of 2-6 sequences, each of 1-24 queries over 150-1200 more keys;
  vI: 40 calls of 2-12 sequences of 3-10 queries (within 20%) over 350-700
      keys (within 15%)."""
import importlib.util, pathlib, random, sys

HERE = pathlib.Path(__file__).parent
spec = importlib.util.spec_from_file_location("prefix_draws", HERE.parent / "h200-v39-session" / "prefix-draws.py")
prefix_draws = importlib.util.module_from_spec(spec)
spec.loader.exec_module(prefix_draws)


def jitter(rng, x, f):
    return max(1, round(x * (1 + rng.uniform(-f, f))))


def calls(rng):
    out = []
    for i in range(40):
        b, q = rng.choice((2, 3, 4, 5)), rng.randrange(9, 17)
        kv = rng.randrange(300, 700) if i % 2 == 0 else rng.randrange(700, 2048)
        qs = [jitter(rng, q, 0.1) for _ in range(b)]
        out.append((f"vG{i}_b{b}_q{q}_kv{kv}", qs, [max(x, jitter(rng, kv, 0.2)) for x in qs]))
    for i in range(40):
        b = rng.choice((2, 3, 4, 5, 6))
        qs = [rng.randrange(1, 25) for _ in range(b)]
        ks = [q + rng.randrange(150, 1200) for q in qs]
        out.append((f"vH{i}_b{b}_q{max(qs)}_kv{max(ks)}", qs, ks))
    for i in range(40):
        b, q, kv = rng.choice((2, 3, 4, 6, 8, 12)), rng.randrange(3, 11), rng.randrange(350, 700)
        qs = [jitter(rng, q, 0.2) for _ in range(b)]
        out.append((f"vI{i}_b{b}_q{q}_kv{kv}", qs, [max(x, jitter(rng, kv, 0.15)) for x in qs]))
    return out


if __name__ == "__main__":
    rng = random.Random(40093)
    prefix_draws.write(sys.argv[1], calls(rng), rng)
