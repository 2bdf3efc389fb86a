#!/usr/bin/env bash
# Fifteenth session, call 7 (carry ["dist"]; about 2.5 minutes).
# Calls 2-4: at 16384 both our kernel and cuDNN's dense kernel run at the
# 700 W cap (1605-1665 and 1680 MHz), ours in 2890-2961 us, cuDNN's in 2952.
# Here every long row, sustained for ~4 s under scripts/power-probe.sh,
# ours then cuDNN's: the same power, the time each gets for it.
# Prediction: ours within +-2% of cuDNN on 8192/16384/32768 (ahead by
# cycles, level by joules), batch16x2048 ahead (cuDNN's own anchor row is
# 544 TFLOP/s against 8192's 593 in the fourteenth session's call 2).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
t0=$(date +%s)
run() {  # name, bench filter, our reps, dense row, dense reps
  bash scripts/power-probe.sh ours-$1 -- timeout 60 $D/pagedattn bench --backend cuda --no-check \
    --workloads $D/scale.jsonl --filter $2 --reps $3 --warmup 20
  bash scripts/power-probe.sh cudnn-$1 -- timeout 90 python3 bench/python/dense_anchor.py --rows $4 --reps $5 --backends cudnn
  echo "$1: ours $(grep -hoE "^\| $2 +\| +[0-9]+ +\| +[0-9]+ +\| +[0-9]+ +\| +[0-9.]+" "$OUT/power-ours-$1.log" | awk -F'|' '{print $6}') us," \
    "cudnn $(grep -hoE 'cudnn \| [0-9.]+' "$OUT/power-cudnn-$1.log" | awk '{print $3}') us"
}
run 8192 scale_single_8192 5000 8192 5000
run 16384 scale_single_16384 1400 16384 1400
run 32768 scale_single_32768 350 32768 350
run b16x2048 scale_batch16x2048 4500 16x2048 4500
echo "total $(( $(date +%s) - t0 ))s"
