#!/usr/bin/env python3
"""Reads a forced-configuration sweep (the markdown table that
scripts/device-ab.sh prints, e.g. call1's ti.txt) beside each call's
plans (the `plans` example of the CLI crate, run here for the automatic
choice and for each forced column), and prints, call by call, the
automatic plan, the best column and its time against the automatic one,
then the geomean of best / auto and the calls grouped by the shape a
split rule sees (sequences, most queries, blocks of 64 keys of the
longest sequence), to refit the rule from.

    python3 sweep-best.py TABLE.txt WORKLOADS.jsonl auto= m64=--tile=m64 \\
        s1=--tile=m64,--split=1 ... [--plans target/release/examples/plans]

A column named `auto` (no flags) must be first; the others' flags are
those device-ab.sh got after `@`. Build the plans example from the
commit the sweep's binary was built from (call1: main with
direct-host.patch). Groups: most queries from 1, 3, 5, 11, 17 or 33;
blocks in fours. Python 3 standard library only.
"""
import collections
import json
import math
import subprocess
import sys


def parse_table(path):
    """{workload: {column: us}} from the first markdown table of `path`."""
    cols, rows = None, {}
    for line in open(path):
        if not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cols is None:
            cols = [c.removesuffix(" us") for c in cells[1:]]
            continue
        if set(cells[0]) <= set("-: "):
            continue
        vals = {}
        for c, v in zip(cols, cells[1:]):
            try:
                vals[c] = float(v)
            except ValueError:
                pass
        rows[cells[0]] = vals
    return rows


def plans(binary, workloads, flags):
    """{workload: (config, grid, chunk, chunks a tile)} from the example."""
    args = [binary] + [f for f in flags.split(",") if f] + [workloads]
    out = {}
    for line in subprocess.run(args, check=True, capture_output=True, text=True).stdout.splitlines():
        f = line.split("\t")
        if len(f) < 5:
            continue
        out[f[0]] = (f[1], f[2].removeprefix("grid "), f[3].removeprefix("chunk "), f[4].removeprefix("chunks/tile "))
    return out


def shapes(workloads):
    """{workload: (sequences, most queries, 64-key blocks of the longest)}."""
    out = {}
    for line in open(workloads):
        w = json.loads(line)
        name = w.get("name") or w.get("workload", {}).get("name")
        qo, kv = w["qo_indptr"], w["kv_indptr"]
        q = max(b - a for a, b in zip(qo, qo[1:]))
        k = max(b - a for a, b in zip(kv, kv[1:]))
        out[name] = (len(qo) - 1, q, math.ceil(k / 64))
    return out


def main():
    args = sys.argv[1:]
    binary = "target/release/examples/plans"
    if "--plans" in args:
        i = args.index("--plans")
        binary = args[i + 1]
        del args[i : i + 2]
    table, workloads, cols = args[0], args[1], [a.split("=", 1) for a in args[2:]]
    if not cols or cols[0][0] != "auto":
        sys.exit("the first column must be auto=")
    times = parse_table(table)
    plan = {c: plans(binary, workloads, f) for c, f in cols}
    shape = shapes(workloads)
    ratios, groups = [], collections.defaultdict(list)
    print("| workload | seqs | q max | blocks | auto plan | auto us | best | best us | best/auto | best plan |")
    print("|---|---:|---:|---:|---|---:|---|---:|---:|---|")
    for name, t in times.items():
        if "auto" not in t or name not in shape:
            continue
        best = min((c for c, _ in cols if c in t), key=lambda c: t[c])
        r = t[best] / t["auto"]
        ratios.append(r)
        s = shape[name]
        qb = next(lo for lo in (33, 17, 11, 5, 3, 1) if s[1] >= lo)
        groups[(s[0], qb, (s[2] - 1) // 4 * 4 + 1)].append((r, best))
        p = lambda c: "/".join(plan[c].get(name, ("?",) * 4))
        print(f"| {name} | {s[0]} | {s[1]} | {s[2]} | {p('auto')} | {t['auto']:.1f} | {best} | "
              f"{t[best]:.1f} | {r:.3f} | {p(best)} |")
    if ratios:
        g = math.exp(sum(map(math.log, ratios)) / len(ratios))
        print(f"\ngeomean best/auto over {len(ratios)} calls: {g:.3f}; "
              f"{sum(r < 0.95 for r in ratios)} below 0.95")
    print("\n| seqs | q max from | blocks from | calls | geomean best/auto | best columns |")
    print("|---:|---:|---:|---:|---:|---|")
    for k in sorted(groups):
        v = groups[k]
        g = math.exp(sum(math.log(r) for r, _ in v) / len(v))
        best = collections.Counter(b for _, b in v).most_common(3)
        print(f"| {k[0]} | {k[1]} | {k[2]} | {len(v)} | {g:.3f} | {', '.join(f'{b} {n}' for b, n in best)} |")


if __name__ == "__main__":
    main()
