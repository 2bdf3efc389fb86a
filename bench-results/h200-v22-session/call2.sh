#!/usr/bin/env bash
# Sixteenth session, call 2 (inputs: dist.sh at 8a8d5b2, updownd shipped, and
# gather16-variant.patch on it; carry ["dist"]; about 4 minutes): gather16, the K/V gather with 16
# threads a row (gather16-variant.patch): a warp instruction reads two whole
# 256-byte rows instead of eight 64-byte halves, each lane loads one row's
# page id per block and the row's 16 threads take it by a shuffle (4 ids a
# thread before). The shared memory it fills is byte for byte the same.
# Why: bench/micro/move_energy.cu put the 16-lanes-a-row map at ~6% less
# energy a byte than the kernels' 4 lanes a row (calls 3 and 5), and the
# long rows are power-bound, ~15% of their energy in these bytes.
# Prediction: bits equal on every row; the long rows ~1% faster sustained
# (16384 power probe, two each, alternating); the short rows within noise
# (the producer's page-id chain gains a shuffle, loses three loads).
# If it pays: scripts/device-variant.sh gather16 (its checks).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist; B=$D/pagedattn; V=$D/var/gather16.cubin
P=(bench --backend cuda --no-check --workloads $D/scale.jsonl --filter scale_single_16384 --reps 1400 --warmup 20)
for r in 1 2; do
  bash scripts/power-probe.sh ours16k-$r -- timeout 60 $B "${P[@]}"
  bash scripts/power-probe.sh gather16-16k-$r -- timeout 60 $B "${P[@]}" --attention-cubin $V
done
for f in "$OUT"/power-*16k-*.log; do echo "$(basename $f .log): $(grep -hoE '^\| scale_[a-z0-9_]+ +\| +[0-9]+ +\| +[0-9]+ +\| +[0-9]+ +\| +[0-9.]+' $f | awk -F'|' '{printf "%s %s; ", $2, $6}')"; done
W=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/shapes.jsonl --workloads $D/prefix.jsonl)
AB_ROUNDS=2 AB_TIMEOUT=150 OUT=$OUT/ab bash scripts/device-ab.sh shipped=$B "gather16=$B@--attention-cubin=$V" \
  -- "${W[@]}" > "$OUT/ab.txt" 2>&1
grep -vE "^\s*$" "$OUT/ab.txt" | grep -v "rc=0"
