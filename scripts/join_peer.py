#!/usr/bin/env python3
"""Join our bench report with FlashInfer's peer numbers into one markdown table.

    python3 scripts/join_peer.py OURS.json [--peer-json results.json | --peer-md RESULTS.md]

OURS.json is `pagedattn bench --json OURS.json` output. The peer numbers are
FlashInfer's kernel-only time (`graph`: events around a CUDA-graph replay of
run(), cold L2), best of its backends (fa2, fa3), taken from either
  --peer-json  the results.json that flashinfer_peer.py writes under --out
               (workloads[].backends.<fa2|fa3>.t_graph.median_us), or
  --peer-md    its markdown report, the table with 'fa2 graph' / 'fa3 graph'
               columns (default: docs/peer-flashinfer-H200.md, the H200 run).
Prints the table, then the geometric mean of ours / FlashInfer over the seed
workloads (names starting with 'seed') and over every joined workload.
Python 3 standard library only.
"""
import argparse
import json
import math
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_MD = os.path.join(ROOT, "docs", "peer-flashinfer-H200.md")
BACKENDS = ("fa2", "fa3")


def fail(msg):
    print(f"error: {msg}", file=sys.stderr)
    sys.exit(1)


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        fail(f"{path}: {e}")


def peer_from_json(path):
    """name -> dict(floor_us, graph={backend: us})"""
    data = load_json(path)
    out = {}
    for w in data.get("workloads", []):
        graph = {}
        for b in BACKENDS:
            t = ((w.get("backends") or {}).get(b) or {}).get("t_graph") or {}
            if isinstance(t.get("median_us"), (int, float)):
                graph[b] = float(t["median_us"])
        out[w["name"]] = dict(floor_us=w.get("floor_us"), graph=graph)
    return out


def number(cell):
    try:
        return float(cell.strip().split()[0])
    except (ValueError, IndexError):
        return None


def peer_from_md(path):
    """Reads the first markdown table that has 'fa2 graph' / 'fa3 graph' columns."""
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError as e:
        fail(f"{path}: {e}")
    out = {}
    cols = None
    for line in lines:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cols is None:
            if line.lstrip().startswith("|") and any(c in ("fa2 graph", "fa3 graph") for c in cells):
                cols = {c: i for i, c in enumerate(cells)}
            continue
        if not line.lstrip().startswith("|"):
            break  # end of the table
        if set(line.replace("|", "").strip()) <= set("-: "):
            continue  # the separator row
        name = cells[cols.get("name", 0)]
        graph = {}
        for b in BACKENDS:
            i = cols.get(f"{b} graph")
            v = number(cells[i]) if i is not None and i < len(cells) else None
            if v is not None:
                graph[b] = v
        floor = number(cells[cols["floor"]]) if "floor" in cols else None
        out[name] = dict(floor_us=floor, graph=graph)
    if cols is None:
        fail(f"{path}: no table with 'fa2 graph' / 'fa3 graph' columns")
    return out


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def fmt(x, nd=1):
    return "-" if x is None else f"{x:.{nd}f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("ours", help="pagedattn bench --json output")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--peer-json", help="flashinfer_peer.py results.json")
    g.add_argument("--peer-md", help=f"FlashInfer markdown report (default {os.path.relpath(DEFAULT_MD)})")
    args = ap.parse_args()

    ours = load_json(args.ours)
    if not isinstance(ours, dict) or "rows" not in ours:
        fail(f"{args.ours}: not a pagedattn bench report (no 'rows')")
    peer = peer_from_json(args.peer_json) if args.peer_json else peer_from_md(args.peer_md or DEFAULT_MD)
    source = args.peer_json or args.peer_md or os.path.relpath(DEFAULT_MD)

    print(f"ours: {ours.get('backend', '?')} on {ours.get('device', '?')}, {ours.get('date', '?')}, "
          f"commit {ours.get('commit') or '?'}; FlashInfer: {source} (graph = kernel-only, best of fa2/fa3)")
    print()
    print("| workload | floor us | FlashInfer graph us (backend) | ours us | ours / FlashInfer | ours / floor | check |")
    print("|---|---:|---:|---:|---:|---:|---|")
    ratios_seed, ratios_all = [], []
    for r in ours["rows"]:
        name = r["name"]
        p = peer.get(name, {})
        floor = r.get("floor_us") or p.get("floor_us")
        best = min(((t, b) for b, t in p.get("graph", {}).items()), default=None)
        t = r.get("time_us")
        ratio = t / best[0] if (t and best) else None
        if ratio is not None:
            ratios_all.append(ratio)
            if name.startswith("seed"):
                ratios_seed.append(ratio)
        best_s = f"{best[0]:.1f} ({best[1]})" if best else "-"
        print(f"| {name} | {fmt(floor, 2)} | {best_s} | {fmt(t)} | {fmt(ratio, 2)} | "
              f"{fmt(t / floor if (t and floor) else None, 1)} | {r.get('status', '?')} |")
    print()
    n_seed = len({n for n in [r["name"] for r in ours["rows"]] + list(peer) if n.startswith("seed")})
    g = geomean(ratios_seed)
    if g is not None:
        print(f"geomean ours / FlashInfer over the seed set: {g:.3f} ({len(ratios_seed)} of {n_seed} seed workloads)")
    else:
        print("geomean ours / FlashInfer over the seed set: - (no seed workload timed by both)")
    g = geomean(ratios_all)
    if g is not None:
        print(f"geomean ours / FlashInfer over all {len(ratios_all)} joined workloads: {g:.3f}")


if __name__ == "__main__":
    main()
