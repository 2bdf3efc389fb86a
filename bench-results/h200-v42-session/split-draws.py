#!/usr/bin/env python3
"""The thirty-ninth session's call 2: m64's forced chunk sizes on
decode-like calls of a few sequences (their time is not monotonic in the
keys: grid A and call 2's vA of the thirty-eighth session swing 15-25%
between calls of one shape), written as JSONL workloads
(h200-v39-session/prefix-draws.py's writer):
    python3 split-draws.py OUT.jsonl
  grid A again (h200-v40-session/grids.py dec, its own seed), vA of
  h200-v41-session/val-draws.py (its own seed), and vF: a fresh draw of
  2-4 sequences of 9-16 queries (jittered within 10%) over 500-2500 keys
  (within 20%)."""
import importlib.util, pathlib, random, sys

HERE = pathlib.Path(__file__).parent


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


prefix_draws = load("prefix_draws", HERE.parent / "h200-v39-session" / "prefix-draws.py")
grids = load("grids", HERE.parent / "h200-v40-session" / "grids.py")
val41 = load("val41", HERE.parent / "h200-v41-session" / "val-draws.py")


def jitter(rng, x, f):
    return max(1, round(x * (1 + rng.uniform(-f, f))))


def fresh(rng):
    out = []
    for i in range(32):
        b, q, kv = rng.choice((2, 3, 4)), rng.randrange(9, 17), rng.randrange(500, 2500)
        qs = [jitter(rng, q, 0.1) for _ in range(b)]
        out.append((f"vF{i}_b{b}_q{q}_kv{kv}", qs, [max(x, jitter(rng, kv, 0.2)) for x in qs]))
    return out


if __name__ == "__main__":
    out = sys.argv[1]
    parts = []
    rng = random.Random(37011)
    parts.append((grids.dec(rng), rng))
    rng = random.Random(38041)
    parts.append(([c for c in val41.calls(rng) if c[0].startswith("vA")], rng))
    rng = random.Random(39043)
    parts.append((fresh(rng), rng))
    with open(out, "w") as f:
        pass
    tmp = pathlib.Path(out)
    lines = []
    for calls, r in parts:
        prefix_draws.write(str(tmp) + ".part", calls, r)
        lines += open(str(tmp) + ".part").read().splitlines()
    pathlib.Path(str(tmp) + ".part").unlink()
    tmp.write_text("\n".join(lines) + "\n")
