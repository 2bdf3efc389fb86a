#!/usr/bin/env bash
# Fourteenth session, call 6 (carry ["dist"]): the spread of two rows across
# processes. scale_batch16x2048 took 765.8 / 839.8 / 868.8 us in call 2's
# three rounds and 759-859 in call 5's configurations, with equal bits;
# scale_single_8192 662.8 / 715.8 / 702.2. Eight processes each, one row
# per process, alternating, with nvidia-smi's clocks and temperature
# between them: is the time bimodal by process (the buffers' placement) or
# does it follow the clocks?
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
B=dist/pagedattn
for i in 1 2 3 4 5 6 7 8; do
  for row in scale_batch16x2048 scale_single_8192; do
    c=$(nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader)
    t=$(timeout 60 $B bench --backend cuda --workloads dist/scale.jsonl --filter $row --json "$OUT/$row-$i.json" 2>/dev/null \
        | grep -E "^\| $row" | awk -F'|' '{print $6}')
    echo "$i $row $t us (before: $c)"
  done
done
