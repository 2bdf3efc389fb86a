#!/usr/bin/env bash
# Fourteenth session, call 7 (carry ["dist"]): call 6 found
# scale_batch16x2048 at 785-867 us and scale_single_8192 at 657-728 across
# eight processes at steady clocks (1965 MHz, 50 C). Each process draws new
# random inputs (the bench's input seed). Same eight runs with the input
# seed fixed (--seed 7), then two seeds alternating (7, 8): if the spread
# goes, the data sets it (the softmax's fast path); if it stays, the
# buffers' placement does.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
B=dist/pagedattn
for s in 7 7 7 7 8 7 8 7 8 7; do
  for row in scale_batch16x2048 scale_single_8192; do
    t=$(timeout 60 $B bench --backend cuda --seed $s --workloads dist/scale.jsonl --filter $row 2>/dev/null \
        | grep -E "^\| $row" | awk -F'|' '{print $6}')
    echo "seed $s $row $t us"
  done
done
