#!/usr/bin/env python3
"""Per-workload ncu summary table from the raw CSVs of `device-run.sh ncu-rows`.

    python3 scripts/ncu_rows.py DIR   (DIR holds row_<workload>.csv)

Columns: kernel duration, grid, SM busy (sm__cycles_active / elapsed), tensor
pipe active, DRAM throughput, issue-active, cycles between a warp's
instructions, and that interval split by stall reason (warps per issue).
Rows: seed workloads, single sequences by length, then batches. Python 3 standard
library only.
"""
import csv
import glob
import os
import re
import sys

STALLS = ["long_scoreboard", "wait", "barrier", "dispatch_stall", "no_instruction", "imc_miss",
          "not_selected", "math_pipe_throttle", "short_scoreboard", "gmma", "mio_throttle",
          "branch_resolving"]
DURATION = "gpu__time_duration.sum"


def load(path):
    """metric -> value of the one profiled kernel (durations in us)"""
    names, units, values = list(csv.reader(open(path)))[:3]
    row = dict(zip(names, values))
    if dict(zip(names, units)).get(DURATION) == "ms":
        row[DURATION] = str(float(row[DURATION]) * 1000)
    return row


def num(row, key):
    try:
        return float(row.get(key, "nan").replace(",", ""))
    except ValueError:
        return float("nan")


def order(name):
    """seed rows, then single sequences by length, then the batches"""
    if name.startswith("seed"):
        return (0, 0, name)
    m = re.match(r"scale_single_(\d+)$", name)
    return (1, int(m.group(1)), name) if m else (2, 0, name)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    rows = {os.path.basename(f)[4:-4]: load(f) for f in glob.glob(os.path.join(sys.argv[1], "row_*.csv"))}
    print("| workload | ncu us | grid | SMs busy % | tensor pipe % | DRAM % | issue active % | cycles/issue | "
          + " | ".join(STALLS) + " |")
    print("|---" * (8 + len(STALLS)) + "|")
    for name in sorted(rows, key=order):
        r = rows[name]
        busy = 100 * num(r, "sm__cycles_active.avg") / num(r, "gpc__cycles_elapsed.max")
        stalls = [num(r, "smsp__average_warps_issue_stalled_%s_per_issue_active.ratio" % k) for k in STALLS]
        print("| %s | %.1f | %d | %.0f | %.1f | %.1f | %.1f | %.1f | %s |" % (
            name, num(r, DURATION), num(r, "launch__grid_size"), busy,
            num(r, "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed"),
            num(r, "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"),
            num(r, "smsp__issue_active.avg.pct_of_peak_sustained_active"),
            num(r, "smsp__average_warp_latency_per_inst_issued.ratio"),
            " | ".join("%.2f" % x for x in stalls)))


if __name__ == "__main__":
    main()
