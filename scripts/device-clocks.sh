#!/usr/bin/env bash
# On the GPU machine: runs each command while nvidia-smi samples the SM clock,
# power draw and throttle reasons every 20 ms, and prints per command the
# median SM clock and power over the samples taken while the GPU was busy
# (utilisation > 50%). Shows whether a long row runs at full clock or is held
# back by the power limit (the time of a long row scales with the clock).
#   bash scripts/device-clocks.sh "LABEL=COMMAND" ...
# Samples land in $OUT/clocks-LABEL.csv (default OUT=/tmp/out).
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
printf '%-24s %8s %10s %10s %10s  %s\n' label samples "clock MHz" "power W" "max MHz" "throttle reasons (busy samples)"
for spec in "$@"; do
  label=${spec%%=*}; cmd=${spec#*=}
  csv="$OUT/clocks-$label.csv"
  nvidia-smi --query-gpu=utilization.gpu,clocks.sm,clocks.max.sm,power.draw,clocks_throttle_reasons.active \
    --format=csv,noheader,nounits -lms 20 > "$csv" 2>/dev/null &
  smi=$!
  bash -c "$cmd" > "$OUT/clocks-$label.log" 2>&1
  kill "$smi" 2>/dev/null; wait "$smi" 2>/dev/null
  python3 - "$csv" "$label" <<'PY'
import statistics, sys, collections
rows = []
for line in open(sys.argv[1]):
    f = [x.strip() for x in line.split(",")]
    try:
        rows.append((float(f[0]), float(f[1]), float(f[2]), float(f[3]), f[4]))
    except (ValueError, IndexError):
        pass
busy = [r for r in rows if r[0] > 50] or rows
if not busy:
    print(f"{sys.argv[2]:24s} no samples"); sys.exit()
reasons = collections.Counter(r[4] for r in busy)
print(f"{sys.argv[2]:24s} {len(busy):8d} {statistics.median(r[1] for r in busy):10.0f} "
      f"{statistics.median(r[3] for r in busy):10.0f} {max(r[2] for r in busy):10.0f}  "
      + ", ".join(f"{k} x{v}" for k, v in reasons.most_common(3)))
PY
done
