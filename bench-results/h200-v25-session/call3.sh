#!/usr/bin/env bash
# Nineteenth session, call 3 (carry ["dist"]: dist of the merge change,
# dist/base/pagedattn = main's CLI before it).
# The merge a warp per real row (merge.cuh), partials row-major and only
# real rows, up to 64 chunks a tile where the longest sequence has at most
# 5 queries (32 otherwise).
#   Prediction: long_b1_q1_kv32768 59.8 -> ~35 us, long_b1_q8_kv65536
#   97.9 -> ~65 us (the model now cuts 32 and 64 chunks); the decode rows
#   of many sequences unchanged (no split or the same split); seed and
#   scale rows bitwise equal and within noise (nothing splits there);
#   the split cached-prefix rows (prefix_*, m128d with chunks) within
#   +-3% (their merge reads the same bytes in the same rounds).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap 'cd "$OUT" && tar czf logs.tgz --remove-files t ab1 ab2 ab3 *.log 2>/dev/null; echo "total $(( $(date +%s) - t0 ))s"' EXIT
TESTS_TIMEOUT=200 OUT=$OUT/t bash scripts/device-run.sh tests > "$OUT/tests.log" 2>&1
echo "tests $(( $(date +%s) - t0 ))s: $(grep -E 'gpu tests rc' "$OUT/tests.log")"; grep -E "FAILED|panicked|differs" "$OUT/t/gpu_tests.log" | head -5
B=dist/pagedattn; O=dist/base/pagedattn
AB_ROUNDS=2 AB_TIMEOUT=150 OUT=$OUT/ab1 bash scripts/device-ab.sh base=$O new=$B -- --workloads dist/serving.jsonl > "$OUT/serving.txt" 2>&1
echo "serving $(( $(date +%s) - t0 ))s"
AB_ROUNDS=1 AB_TIMEOUT=100 OUT=$OUT/ab2 bash scripts/device-ab.sh new=$B s16=$B@--split=16 s8=$B@--split=8 \
  -- --workloads dist/serving.jsonl --filter long_ > "$OUT/splits.txt" 2>&1
echo "splits $(( $(date +%s) - t0 ))s"
AB_ROUNDS=2 AB_TIMEOUT=200 OUT=$OUT/ab3 bash scripts/device-ab.sh base=$O new=$B -- --workloads dist/seed.jsonl \
  --workloads dist/scale.jsonl --workloads dist/shapes.jsonl --workloads dist/prefix.jsonl > "$OUT/table.txt" 2>&1
echo "table $(( $(date +%s) - t0 ))s"
mkdir -p "$OUT/j" && cp "$OUT"/ab1/*.json "$OUT"/ab3/*.json "$OUT/j/" 2>/dev/null; (cd "$OUT" && tar czf json.tgz j && rm -rf j)
sed -n '/^| workload/,$p' "$OUT/serving.txt"
sed -n '/^| workload/,$p' "$OUT/splits.txt"
sed -n '/^| workload/,$p' "$OUT/table.txt" | awk -F'|' 'NR<=2 || $5+0 > 1.02 || $5+0 < 0.98' | head -40
tail -n 3 "$OUT/table.txt"
