#!/usr/bin/env bash
# Device call 10 (fifth session): the long rows of the shipped build
# (3817031) beside the dense anchor (bench/python/dense_anchor.py, cuDNN SDPA
# on contiguous K/V expanded to 24 heads) in one call: the scale set twice,
# then the anchor.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
t0=$(date +%s)
for r in 1 2; do
  timeout 150 $D/pagedattn bench --backend cuda --workloads $D/scale.jsonl --json "$OUT/scale-r$r.json" > "$OUT/scale-r$r.txt" 2>&1
  echo "scale round $r rc=$? $(( $(date +%s) - t0 ))s"
done
grep -E "scale_single_(4096|8192|16384|32768)|batch16x2048" "$OUT/scale-r1.txt" "$OUT/scale-r2.txt" | cut -c1-140
left=$(( 400 - ($(date +%s) - t0) ))
OUT=$OUT/py timeout $left bash scripts/device-python.sh dense > "$OUT/py.txt" 2>&1
echo "dense rc=$? $(( $(date +%s) - t0 ))s"; grep -A8 "=== summary" "$OUT/py.txt"; grep -iE "tflop|us" "$OUT/py.txt" | tail -12
cp py/dense*.json . 2>/dev/null; cd "$OUT" && cp py/dense*.json . 2>/dev/null; tar czf logs.tgz --exclude=logs.tgz * && rm -rf py
ls; echo "total $(( $(date +%s) - t0 ))s"
