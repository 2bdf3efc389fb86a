#!/usr/bin/env python3
"""Summaries of call 1's and call 2's A/B tables (scripts/ab.py's format).
    python3 analyse.py CALL1_OUT_DIR     # pf.txt, pgrid.txt, psplit.txt, dec.txt there
    python3 analyse.py --ab CALL2_OUT_DIR/ab.txt [...]   # the first column against each other"""
import math
import sys
from pathlib import Path


def table(path):
    rows, cols = {}, None
    for line in Path(path).read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| workload"):
            cols = [c[:-3] if c.endswith(" us") else c for c in cells[1:-1]]
        elif line.startswith("| ") and cols and not line.startswith("|---"):
            try:
                rows[cells[0]] = dict(zip(cols, (float(c.split()[0]) for c in cells[1:-1])))
            except ValueError:
                pass
    return cols or [], rows


def gm(xs):
    xs = list(xs)
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def versus(path, a=None, b=None, label=""):
    cols, rows = table(path)
    a, b = a or cols[0], b or cols[1]
    r = {n: t[b] / t[a] for n, t in rows.items() if a in t and b in t}
    if not r:
        return
    moved = {n: x for n, x in r.items() if abs(x - 1) > 0.03}
    print(f"{label or Path(path).name}: {b}/{a} geomean {gm(r.values()):.4f} over {len(r)}, "
          f"min {min(r.values()):.3f} max {max(r.values()):.3f}; beyond 3%: {len(moved)}")
    for n, x in sorted(moved.items(), key=lambda kv: kv[1]):
        print(f"    {n:34s} {rows[n][a]:8.1f} -> {rows[n][b]:8.1f}  {x:.3f}")


def best_of(path, label, auto="auto"):
    cols, rows = table(path)
    print(f"{label}: the fastest column per call, where it beats {auto} by more than 3%")
    for n, t in rows.items():
        best = min(t, key=t.get)
        if t[best] < 0.97 * t[auto]:
            print(f"    {n:34s} {auto} {t[auto]:7.1f}  best {best} {t[best]:7.1f} ({t[best] / t[auto]:.3f})  "
                  + " ".join(f"{c} {t[c]:.1f}" for c in cols))


def main():
    if sys.argv[1:2] == ["--ab"]:
        for p in sys.argv[2:]:
            cols, _ = table(p)
            for c in cols[1:]:
                versus(p, cols[0], c)
        return
    d = Path(sys.argv[1])
    if (d / "pf.txt").exists():
        versus(d / "pf.txt", "base", "pf", "codepf")
        versus(d / "pf.txt", "base", "pf2", "codepf2")
    if (d / "pgrid.txt").exists():
        best_of(d / "pgrid.txt", "short prefills")
    if (d / "psplit.txt").exists():
        best_of(d / "psplit.txt", "one sequence on m128d, forced chunks", auto="d")
    if (d / "dec.txt").exists():
        best_of(d / "dec.txt", "short decode-like calls")


if __name__ == "__main__":
    main()
