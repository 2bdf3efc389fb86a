#!/usr/bin/env bash
# Fourteenth session, call 9 (carry ["dist/wheels"]; the machine call 8
# left warm): call 8's placements drifted slower in order (8192: 659 ->
# 695 us; 16x2048: 759 -> 812) rather than scattering, which points at the
# GPU's state under load, not at placement. The same probe with the SM
# clock, power and temperature sampled every 100 ms during it.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site dist/wheels/*.whl
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active \
  --format=csv,noheader -lms 100 > "$OUT/smi.csv" 2>&1 &
smi=$!
PYTHONPATH=/tmp/site timeout 100 python3 bench/python/placement_probe.py --placements 8 --reps 30 | tee "$OUT/probe.md"
kill $smi
python3 - "$OUT/smi.csv" <<'PY'
import sys
rows = [l.strip().split(", ") for l in open(sys.argv[1]) if l.count(",") >= 5]
print(f"{len(rows)} samples")
for r in rows[:: max(1, len(rows) // 25)]:
    print(" | ".join(r))
PY
