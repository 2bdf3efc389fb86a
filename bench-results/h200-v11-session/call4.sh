#!/usr/bin/env bash
# Device call 4 (fifth session), the final build (81e7cd9's kernel and host
# code): the four sanitizers over workloads/split.jsonl (calls the automatic
# split cuts, one-warp and whole-CTA plans, m128 and m64) plus the edge cases
# and 20 generated batches, through the host plan and the device plan; GPU
# reliability; the Python package's GPU pytest and FlashInfer-Bench's
# evaluator.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
for d in /usr/local/cuda/bin /usr/local/cuda/compute-sanitizer; do [ -d "$d" ] && PATH="$PATH:$d"; done
t0=$(date +%s)
for plan in host device; do
  for tool in memcheck racecheck synccheck initcheck; do
    timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $D/pagedattn check --backend cuda --cpu-ref-max-pairs 0 \
      --plan $plan --workloads $D/split.jsonl --generated 20 > "$OUT/san_${plan}_$tool.log" 2>&1
    echo "$tool ($plan plan) rc=$? $(grep -E 'SUMMARY' $OUT/san_${plan}_$tool.log | tail -1) | $(grep -cE '\| ok' $OUT/san_${plan}_$tool.log) ok | $(( $(date +%s) - t0 ))s"
  done
done
timeout 100 $D/gpu_reliability --include-ignored --test-threads=1 > "$OUT/gpu_rel.log" 2>&1
echo "gpu_reliability rc=$? $(grep -E '^test result' $OUT/gpu_rel.log) $(( $(date +%s) - t0 ))s"
left=$(( 560 - ($(date +%s) - t0) )); [ $left -lt 30 ] && left=30
OUT=$OUT/py timeout $left bash scripts/device-python.sh pytest suite > "$OUT/py.txt" 2>&1
echo "python rc=$? $(( $(date +%s) - t0 ))s"; grep -A6 "=== summary" "$OUT/py.txt"
cd "$OUT" && mkdir -p j && cp py/suite/suite_results.json j/ 2>/dev/null; cp py/suite/suite_results.md j/ 2>/dev/null
tar czf logs.tgz --exclude=logs.tgz --exclude=j * && tar czf json.tgz j && rm -rf py j *.log
ls; echo "total $(( $(date +%s) - t0 ))s"
