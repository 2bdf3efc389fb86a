#!/usr/bin/env bash
# Nineteenth session, call 4 (carry ["dist"]: dist of the hybrid merge,
# dist/base/pagedattn = main's CLI, dist/rows.jsonl: split tiles of 1-12
# queries, from make-rows.py).
# The merge by rows only where a tile's warpgroup has at most 16 real rows
# (q <= 2 a sequence), by fragments (as before) otherwise; 64 chunks a tile
# where every tile merges by rows, 32 otherwise (16 before).
#   Prediction: long_b1_q1_kv32768 59.8 -> ~45 us (call 3's by-rows merge at
#   32 chunks), long_b1_q8_kv65536 97.6 -> ~71 (32 chunks merged by
#   fragments, call 1's s32); every other row bitwise equal to base and
#   within noise (no other plan changes; the unit is read again from shared
#   memory after the main loop, which moves code, not bits).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap 'cd "$OUT" && tar czf logs.tgz --remove-files t ab1 ab2 ab3 san *.log 2>/dev/null; echo "total $(( $(date +%s) - t0 ))s"' EXIT
B=dist/pagedattn; O=dist/base/pagedattn
TESTS_TIMEOUT=200 OUT=$OUT/t bash scripts/device-run.sh tests > "$OUT/tests.log" 2>&1
echo "tests $(( $(date +%s) - t0 ))s: $(grep -E 'gpu tests rc' "$OUT/tests.log")"; grep -E "FAILED|panicked|differs" "$OUT/t/gpu_tests.log" | head -5
mkdir -p "$OUT/san"
for cfg in "--tile m64" "--tile m128" "--tile m128dv --split 4" "--tile m64 --split 4 --plan device" "--tile m64 --split 2 --plan host"; do
  $B check --backend cuda --workloads dist/rows.jsonl $cfg 2>&1 | grep -E "workloads?:" | sed "s|^|check $cfg: |"
done
for tool in memcheck initcheck racecheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B check --backend cuda --cpu-ref-max-pairs 0 \
    --workloads dist/rows.jsonl --tile m64 --split 4 > "$OUT/san/$tool.log" 2>&1
  echo "$tool rc=$? $(grep -E 'SUMMARY' "$OUT/san/$tool.log" | tail -1)"
done
echo "checks $(( $(date +%s) - t0 ))s"
AB_ROUNDS=2 AB_TIMEOUT=150 OUT=$OUT/ab1 bash scripts/device-ab.sh base=$O new=$B -- --workloads dist/serving.jsonl > "$OUT/serving.txt" 2>&1
AB_ROUNDS=1 AB_TIMEOUT=100 OUT=$OUT/ab2 bash scripts/device-ab.sh new=$B s8=$B@--split=8 s16=$B@--split=16 \
  -- --workloads dist/serving.jsonl --filter long_b1 > "$OUT/splits.txt" 2>&1
AB_ROUNDS=2 AB_TIMEOUT=200 OUT=$OUT/ab3 bash scripts/device-ab.sh base=$O new=$B -- --workloads dist/seed.jsonl \
  --workloads dist/scale.jsonl --workloads dist/shapes.jsonl --workloads dist/prefix.jsonl > "$OUT/table.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"
mkdir -p "$OUT/j" && cp "$OUT"/ab1/*.json "$OUT"/ab3/*.json "$OUT/j/" 2>/dev/null; (cd "$OUT" && tar czf json.tgz j && rm -rf j)
sed -n '/^| workload/,$p' "$OUT/serving.txt"
sed -n '/^| workload/,$p' "$OUT/splits.txt"
sed -n '/^| workload/,$p' "$OUT/table.txt" | awk -F'|' 'NR<=2 || $5+0 > 1.02 || $5+0 < 0.98' | head -30
tail -n 2 "$OUT/table.txt"
