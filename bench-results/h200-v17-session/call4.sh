#!/usr/bin/env bash
# The eleventh session's call 4 (carry ["dist"]; about 6 minutes): idsearly
# (idsearly-variant.patch: the producer loads a unit's first two blocks'
# page ids before it waits for the unit's Q slot, instead of after).
#   prediction: the rows of many one- or two-block units (tiny_*, seed18,
#   seed12, seed09, empty_and_short_b40, q_gt_kv_b8, batch64x512) 2-8%
#   faster, if the page-id trip is on their chain after the slot frees; the
#   direct rows (one unit per CTA: the slot is free at once) and the long
#   rows unchanged; bits equal to the shipped build's everywhere.
# Correctness first (every GPU test and reliability with the variant, the
# four sanitizers through both plans), then two rounds of A/B with digests.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist; B=$D/pagedattn; V=$D/var/idsearly.cubin
for d in /usr/local/cuda/bin /usr/local/cuda/compute-sanitizer; do [ -d "$d" ] && PATH="$PATH:$d"; done
t0=$(date +%s)
PAGEDATTN_ATTENTION_CUBIN=$V timeout 150 $D/gpu_tests --include-ignored --test-threads=1 --nocapture > "$OUT/gpu_tests.log" 2>&1
echo "gpu_tests (idsearly) rc=$? $(grep -E '^test result' $OUT/gpu_tests.log) $(( $(date +%s) - t0 ))s"
grep -E "panicked|FAILED" "$OUT/gpu_tests.log" | head -4
PAGEDATTN_ATTENTION_CUBIN=$V timeout 90 $D/gpu_reliability --include-ignored --test-threads=1 --nocapture > "$OUT/gpu_reliability.log" 2>&1
echo "gpu_reliability (idsearly) rc=$? $(grep -E '^test result' $OUT/gpu_reliability.log) $(( $(date +%s) - t0 ))s"
grep -E "panicked|FAILED" "$OUT/gpu_reliability.log" | head -4
for plan in device host; do
  for tool in memcheck racecheck synccheck initcheck; do
    timeout 45 compute-sanitizer --tool $tool --error-exitcode 9 $B check --backend cuda --cpu-ref-max-pairs 0 \
      --attention-cubin $V --plan $plan --workloads $D/split.jsonl --generated 6 > "$OUT/san_${plan}_$tool.log" 2>&1
    echo "$tool (idsearly, $plan plan) rc=$? $(grep -E 'SUMMARY' $OUT/san_${plan}_$tool.log | tail -1) | $(grep -E 'workloads:' $OUT/san_${plan}_$tool.log | tail -1) | $(( $(date +%s) - t0 ))s"
  done
done
W=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/shapes.jsonl --workloads $D/prefix.jsonl)
AB_ROUNDS=2 AB_TIMEOUT=150 OUT=$OUT/ab bash scripts/device-ab.sh shipped=$B idsearly=$B@--attention-cubin=$V -- "${W[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"
cd "$OUT" && mkdir -p j && cp ab/*.json j/ 2>/dev/null
tar czf logs.tgz --exclude=logs.tgz --exclude=j * && tar czf json.tgz j && rm -rf ab j *.log
grep -vE "^\s*$" ab.txt | grep -v "rc=0" | head -62
echo "total $(( $(date +%s) - t0 ))s"
