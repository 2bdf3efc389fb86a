#!/usr/bin/env python3
"""Attribute ncu's per-SASS-instruction stall samples to source lines.

    python3 scripts/ncu_source_lines.py DISASM SASS_CSV FUNCTION [--top N] [--src FILE]

DISASM:   `nvdisasm --print-line-info-inline attention.cubin` of the very cubin
          that was profiled (inline call stacks per instruction);
SASS_CSV: `ncu -i REPORT --page source --csv --print-source sass` of one kernel
          (rows in instruction order, stall columns `stall_*`);
FUNCTION: the entry point, e.g. paged_prefill_m64;
--src:    kernels/attention.cu as it was when the cubin was built (default:
          the working tree's), for the function line ranges.

Prints the share of samples per kernel region (producer / consumer, from the
line ranges of the functions in kernels/attention.cu) with its main stall
reasons, then the heaviest source lines as `innermost file:line <- the
attention.cu line it was inlined into`. Python 3 standard library only.
"""
import collections
import csv
import re
import sys


def stacks(path, fn):
    """instruction offset -> inline stack [(file, line), innermost first]"""
    lines = open(path).read().split("\n")
    start = next(i for i, l in enumerate(lines) if l.startswith(fn + ":"))
    stack, info, last = [], {}, False
    for l in lines[start + 2:]:
        if l.startswith(".nv.") or re.match(r"^[A-Za-z_]\w*:", l):
            break
        m = re.match(r'\s*//## File "([^"]+)", line (\d+)', l)
        if m:
            if last:
                stack, last = [], False
            stack.append((m.group(1).split("/")[-1], int(m.group(2))))
            continue
        m = re.match(r"\s+/\*([0-9a-f]{4,})\*/", l)
        if m:
            info[int(m.group(1), 16)] = list(stack)
            last = True
    return info


def function_ranges(src="kernels/attention.cu"):
    """(first line, name) of each top-level function template in attention.cu"""
    out = []
    for i, l in enumerate(open(src), 1):
        m = re.match(r"__device__ __forceinline__ \w+ (\w+)\(", l)
        if m:
            out.append((i, m.group(1)))
    return out


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    dis, csv_path, fn = sys.argv[1:4]
    top = int(sys.argv[sys.argv.index("--top") + 1]) if "--top" in sys.argv else 25
    info = stacks(dis, fn)
    ranges = function_ranges(sys.argv[sys.argv.index("--src") + 1] if "--src" in sys.argv else "kernels/attention.cu")

    def region(st):
        for f, n in st:
            if f == "attention.cu":
                name = "?"
                for first, nm in ranges:
                    if first <= n:
                        name = nm
                return name
        return "other"

    rows = list(csv.reader(open(csv_path)))
    head, body = rows[1], rows[2:]
    col = {k: i for i, k in enumerate(head)}
    reasons = [k for k in head if k.startswith("stall_") and "Not Issued" not in k]
    total = 0
    by_region = collections.defaultdict(collections.Counter)
    by_line = collections.defaultdict(collections.Counter)
    for i, row in enumerate(body):
        st = info.get(i * 16, [])
        samples = int(row[col["Warp Stall Sampling (All Samples)"]] or 0)
        total += samples
        inner = [x for x in st if not x[0].endswith((".h", ".hpp"))]
        att = [n for f, n in st if f == "attention.cu"]
        key = ("%s:%d" % inner[0] if inner else "?") + (" <- attention.cu:%d" % att[0] if att else "")
        reg = region(st)
        by_line[key]["all"] += samples
        for k in reasons:
            v = int(row[col[k]] or 0)
            by_region[reg][k] += v
            by_line[key][k] += v
    print("samples: %d" % total)
    for reg, c in sorted(by_region.items(), key=lambda x: -sum(x[1].values())):
        s = sum(c.values())
        if s:
            print("%-40s %5.1f%%  %s" % (reg, 100 * s / total,
                  ", ".join("%s %.1f%%" % (k[6:], 100 * v / total) for k, v in c.most_common(4))))
    print()
    for key, c in sorted(by_line.items(), key=lambda x: -x[1]["all"])[:top]:
        print("%5.1f%%  %-50s %s" % (100 * c["all"] / total, key,
              ", ".join("%s %d" % (k[6:], v) for k, v in c.most_common(5) if k != "all")))


if __name__ == "__main__":
    main()
