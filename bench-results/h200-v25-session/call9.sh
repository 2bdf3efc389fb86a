#!/usr/bin/env bash
# Nineteenth session, call 9 (carry ["dist"]: dist of the cp.async merge,
# dist/base/pagedattn = v17.2 (ac21ac3), dist/rows.jsonl from make-rows.py).
# The merge by rows loads 8 chunks a round by cp.async into each warp's 4 KB
# of the staging buffer instead of 4 into registers.
#   Prediction: long_b1_q1_kv32768 45.9 -> ~42 us and long_b1_q8_kv65536
#   unchanged (its 48 rows merge by fragments); every row whose tiles merge
#   by fragments or do not split bitwise equal to v17.2 and within noise.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap 'cd "$OUT" && tar czf logs.tgz --remove-files t san ab1 ab2 *.log 2>/dev/null; echo "total $(( $(date +%s) - t0 ))s"' EXIT
B=dist/pagedattn; O=dist/base/pagedattn
TESTS_TIMEOUT=200 OUT=$OUT/t bash scripts/device-run.sh tests > "$OUT/tests.log" 2>&1
echo "tests $(( $(date +%s) - t0 ))s: $(grep -E 'gpu tests rc' "$OUT/tests.log")"; grep -E "FAILED|panicked|differs" "$OUT/t/gpu_tests.log" | head -5
mkdir -p "$OUT/san"
for tile in m64 m128 m128d m128dv m192; do
  for split in auto 2 4 16; do
    for plan in host device; do
      r=$($B check --backend cuda --workloads dist/rows.jsonl --workloads dist/split.jsonl --tile $tile --split $split --plan $plan 2>&1 | grep -E "workloads?:")
      case "$r" in *FAIL*|"") echo "check $tile split $split $plan: ${r:-no summary}";; esac
    done
  done
done
echo "checks done $(( $(date +%s) - t0 ))s (only failures printed)"
for tool in memcheck initcheck racecheck synccheck; do
  for tile in m64 m128dv; do
    timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B check --backend cuda --cpu-ref-max-pairs 0 \
      --workloads dist/rows.jsonl --tile $tile --split 4 > "$OUT/san/$tool-$tile.log" 2>&1
    echo "$tool $tile rc=$? $(grep -E 'SUMMARY' "$OUT/san/$tool-$tile.log" | tail -1)"
  done
done
AB_ROUNDS=2 AB_TIMEOUT=150 OUT=$OUT/ab1 bash scripts/device-ab.sh base=$O new=$B -- --workloads dist/serving.jsonl > "$OUT/serving.txt" 2>&1
AB_ROUNDS=1 AB_TIMEOUT=200 OUT=$OUT/ab2 bash scripts/device-ab.sh base=$O new=$B -- --workloads dist/seed.jsonl \
  --workloads dist/scale.jsonl --workloads dist/shapes.jsonl --workloads dist/prefix.jsonl > "$OUT/table.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"
mkdir -p "$OUT/j" && cp "$OUT"/ab1/*.json "$OUT"/ab2/*.json "$OUT/j/" 2>/dev/null; (cd "$OUT" && tar czf json.tgz j && rm -rf j)
sed -n '/^| workload/,$p' "$OUT/serving.txt"
sed -n '/^| workload/,$p' "$OUT/table.txt" | awk -F'|' 'NR<=2 || $5+0 > 1.02 || $5+0 < 0.98' | head -30
tail -n 2 "$OUT/table.txt"
