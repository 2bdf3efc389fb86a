#!/usr/bin/env bash
# The tenth session's call 4 (= h200-v15-session/call6.sh, prepared in the
# ninth session and not run there).
# Everything but the table on the shipped build (dist/ from scripts/dist.sh and dist/wheels from scripts/build-wheel.sh; carry
# ["dist", ".peers", ".whl"]): GPU tests, GPU reliability, the four
# sanitizers through the device and the host plan (split.jsonl + 6
# generated batches), the Python package's GPU pytest and FlashInfer-Bench's
# benchmark and evaluator (ours and FlashInfer's wrapper, same call).
# About 6 minutes.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
for d in /usr/local/cuda/bin /usr/local/cuda/compute-sanitizer; do [ -d "$d" ] && PATH="$PATH:$d"; done
t0=$(date +%s)
timeout 150 $D/gpu_tests --include-ignored --test-threads=1 --nocapture > "$OUT/gpu_tests.log" 2>&1
echo "gpu_tests rc=$? $(grep -E '^test result' $OUT/gpu_tests.log) $(( $(date +%s) - t0 ))s"
grep -E "panicked|FAILED" "$OUT/gpu_tests.log" | head -4
timeout 90 $D/gpu_reliability --include-ignored --test-threads=1 --nocapture > "$OUT/gpu_reliability.log" 2>&1
echo "gpu_reliability rc=$? $(grep -E '^test result' $OUT/gpu_reliability.log) $(( $(date +%s) - t0 ))s"
for plan in device host; do
  for tool in memcheck racecheck synccheck initcheck; do
    timeout 45 compute-sanitizer --tool $tool --error-exitcode 9 $D/pagedattn check --backend cuda --cpu-ref-max-pairs 0 \
      --plan $plan --workloads $D/split.jsonl --generated 6 > "$OUT/san_${plan}_$tool.log" 2>&1
    echo "$tool ($plan plan) rc=$? $(grep -E 'SUMMARY' $OUT/san_${plan}_$tool.log | tail -1) | $(grep -E 'workloads:' $OUT/san_${plan}_$tool.log | tail -1) | $(( $(date +%s) - t0 ))s"
  done
done
left=$(( 560 - ($(date +%s) - t0) )); [ $left -lt 30 ] && left=30
OUT=$OUT/py timeout $left bash scripts/device-python.sh pytest suite > "$OUT/py.txt" 2>&1
echo "python rc=$? $(( $(date +%s) - t0 ))s"; grep -A6 "=== summary" "$OUT/py.txt"
cd "$OUT" && mkdir -p j && cp py/suite/suite_results.json j/ 2>/dev/null; cp py/suite/suite_results.md j/ 2>/dev/null
tar czf logs.tgz --exclude=logs.tgz --exclude=j * && tar czf json.tgz j && rm -rf py j *.log
echo "total $(( $(date +%s) - t0 ))s"
