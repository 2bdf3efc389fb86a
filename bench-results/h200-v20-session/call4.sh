#!/usr/bin/env bash
# Fourteenth session, call 4 (carry ["dist/wheels", ".whl", ".peers"]): the
# Python package of the shipped build (m128dv; wheel from
# scripts/build-wheel.sh) through its GPU tests and FlashInfer-Bench at git
# 40e6ca78 (ours and FlashInfer's wrapper in one call).
#   Prediction: pytest all pass; the suite 20/20 PASSED, its speedup near
#   the thirteenth session's 35.8x (the Mixtral workloads that pick m128dv
#   a few % faster).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
t0=$(date +%s)
OUT=$OUT/py timeout 300 bash scripts/device-python.sh pytest suite > "$OUT/py.txt" 2>&1
echo "python rc=$? $(( $(date +%s) - t0 ))s"
sed -n '/=== summary/,$p' "$OUT/py.txt" | head -20
