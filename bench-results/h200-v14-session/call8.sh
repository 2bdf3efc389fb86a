#!/usr/bin/env bash
# Device call 8 (eighth session): the m128 configuration with a 3-deep K/V
# ring and one Q slot (plans up to 64 sequences), as it would ship (this
# tree's dist/: kernel and host code), validated and timed: GPU tests, GPU
# reliability tests, the four sanitizers (device and host plan,
# split.jsonl + 6 generated), then this build against the previous one
# (dist/prev/pagedattn: cb527a7) on seed + scale + shapes + prefix, two
# rounds.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
for d in /usr/local/cuda/bin /usr/local/cuda/compute-sanitizer; do [ -d "$d" ] && PATH="$PATH:$d"; done
t0=$(date +%s)
timeout 150 $D/gpu_tests --include-ignored --test-threads=1 --nocapture > "$OUT/gpu_tests.log" 2>&1
echo "gpu_tests rc=$? $(grep -E '^test result' $OUT/gpu_tests.log) $(( $(date +%s) - t0 ))s"
grep -E "panicked|FAILED" "$OUT/gpu_tests.log" | head -6
timeout 90 $D/gpu_reliability --include-ignored --test-threads=1 --nocapture > "$OUT/gpu_reliability.log" 2>&1
echo "gpu_reliability rc=$? $(grep -E '^test result' $OUT/gpu_reliability.log) $(( $(date +%s) - t0 ))s"
grep -E "panicked|FAILED" "$OUT/gpu_reliability.log" | head -4
for plan in device host; do
  for tool in memcheck racecheck synccheck initcheck; do
    timeout 45 compute-sanitizer --tool $tool --error-exitcode 9 $D/pagedattn check --backend cuda --cpu-ref-max-pairs 0 \
      --plan $plan --workloads $D/split.jsonl --generated 6 > "$OUT/san_${plan}_$tool.log" 2>&1
    echo "$tool ($plan plan) rc=$? $(grep -E 'SUMMARY' $OUT/san_${plan}_$tool.log | tail -1) | $(grep -E 'workloads:' $OUT/san_${plan}_$tool.log | tail -1) | $(( $(date +%s) - t0 ))s"
  done
done
W=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/shapes.jsonl --workloads $D/prefix.jsonl)
AB_ROUNDS=2 AB_TIMEOUT=100 OUT=$OUT/ab bash scripts/device-ab.sh prev=$D/prev/pagedattn new=$D/pagedattn -- "${W[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"
cd "$OUT" && mkdir -p j && cp ab/*.json j/ 2>/dev/null
tar czf logs.tgz --exclude=logs.tgz --exclude=j * && tar czf json.tgz j && rm -rf ab j *.log
grep -vE "^\s*$" ab.txt | head -70
echo "total $(( $(date +%s) - t0 ))s"
