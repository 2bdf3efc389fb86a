#!/usr/bin/env python3
"""Side-by-side times of several `pagedattn bench --json` reports.

    python3 scripts/ab.py A.json B.json [C.json ...] [--peer results.json]
    python3 scripts/ab.py old=r1/a.json,r2/a.json new=r1/b.json,r2/b.json

One row per workload: each column's median time (us) and check status, the
ratio of the last column to the first, and, with --peer (flashinfer_peer.py's
results.json), FlashInfer's best kernel-only (graph) time and last / FlashInfer.
A column is one report, or NAME=REPORT,REPORT,... (rounds of one
configuration: the median of their times, the worst check status).
Geomeans of the ratios over the seed workloads and over all rows last, then
the output bits (the reports' `output_digest`, same inputs in every run):
which columns give the first column's bits, and any column whose rounds
disagree (a nondeterministic kernel).
Python 3 standard library only.
"""
import json
import math
import statistics
import sys


def main():
    args = sys.argv[1:]
    peer = None
    if "--peer" in args:
        i = args.index("--peer")
        peer = json.load(open(args[i + 1]))
        del args[i : i + 2]
    labels, rows = [], []
    for a in args:
        label, _, paths = a.rpartition("=") if "=" in a else (a.split("/")[-1], "", a)
        labels.append(label)
        rows.append(merge_rounds([json.load(open(p)) for p in paths.split(",")]))
    fi = {}
    if peer:
        for w in peer.get("workloads", []):
            best = None
            for be in w.get("backends", {}).values():
                t = (be.get("t_graph") or {}).get("median_us")
                if t and (best is None or t < best):
                    best = t
            if best:
                fi[w["name"]] = best
    names = list(rows[0])
    hdr = "| workload | " + " | ".join(f"{label} us" for label in labels) + " | last/first |"
    if fi:
        hdr += " FlashInfer us | last/FI |"
    print(hdr)
    print("|" + "---|" * (hdr.count("|") - 1))
    g = {"seed": [], "all": []}
    gf = {"seed": [], "all": []}
    for n in names:
        cells, times = [], []
        for r in rows:
            x = r.get(n)
            if x is None:
                cells.append("-")
                times.append(None)
                continue
            t = x.get("time_us")
            st = x.get("status", "")
            cells.append(("%.1f" % t if t else "-") + ("" if st in ("ok", "reference") else " " + st))
            times.append(t)
        ratio = times[-1] / times[0] if times[0] and times[-1] else None
        line = f"| {n} | " + " | ".join(cells) + " | " + ("%.3f" % ratio if ratio else "-") + " |"
        if ratio:
            g["all"].append(ratio)
            if n.startswith("seed"):
                g["seed"].append(ratio)
        if fi:
            f = fi.get(n)
            rf = times[-1] / f if f and times[-1] else None
            line += (" %.1f |" % f if f else " - |") + (" %.3f |" % rf if rf else " - |")
            if rf:
                gf["all"].append(rf)
                if n.startswith("seed"):
                    gf["seed"].append(rf)
        print(line)
    gm = lambda v: math.exp(sum(map(math.log, v)) / len(v)) if v else float("nan")
    print(f"geomean last/first: seed {gm(g['seed']):.3f}, all {gm(g['all']):.3f}")
    if fi:
        print(f"geomean last/FlashInfer: seed {gm(gf['seed']):.3f}, all {gm(gf['all']):.3f}")
    bits = []
    for label, r in zip(labels, rows):
        unstable = [n for n, x in r.items() if len(x["digests"]) > 1]
        if unstable:
            bits.append(f"{label}: rounds differ on {len(unstable)} rows ({', '.join(unstable[:4])})")
    for label, r in zip(labels[1:], rows[1:]):
        both = [n for n in names if rows[0][n]["digests"] and n in r and r[n]["digests"]]
        differ = [n for n in both if rows[0][n]["digests"] != r[n]["digests"]]
        if both:
            bits.append(f"{label}: {len(both) - len(differ)} of {len(both)} rows bitwise equal to {labels[0]}"
                        + (f" (differ: {', '.join(differ[:4])}{', ...' if len(differ) > 4 else ''})" if differ else ""))
    if bits:
        print("output bits: " + "; ".join(bits))


def merge_rounds(reports):
    """Rows by name: the median time over the reports, the first status that
    is not ok (a failed check in any round shows)."""
    merged = {}
    for rep in reports:
        for r in rep["rows"]:
            m = merged.setdefault(r["name"], dict(r, times=[], digests=set()))
            if r.get("output_digest"):
                m["digests"].add(r["output_digest"])
            if r.get("time_us"):
                m["times"].append(r["time_us"])
            if r.get("status") not in ("ok", "reference"):
                m["status"] = r.get("status")
    for m in merged.values():
        m["time_us"] = statistics.median(m["times"]) if m["times"] else None
    return merged


if __name__ == "__main__":
    main()
