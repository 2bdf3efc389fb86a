#!/usr/bin/env bash
# Call 5 (thirtieth session): the Python package's GPU pytest and
# FlashInfer-Bench (git 40e6ca78, its own protocol: device plan, repeated
# calls, so the plan memo hits) on the wheel of 78fa2bc (c8c9888's memo and
# 96069e4's decode rule). Carry ["dist/wheels", ".whl", ".peers"].
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
timeout 420 bash scripts/device-python.sh pytest suite > "$OUT/py.log" 2>&1
echo "python rc=$? $(( $(date +%s) - t0 ))s"; sed -n '/^=== summary/,$p' "$OUT/py.log" | head -20
grep -E "^\| seed|geomean" "$OUT/suite/suite_results.md" 2>/dev/null | head -24
