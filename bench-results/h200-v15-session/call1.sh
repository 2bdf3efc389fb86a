#!/usr/bin/env bash
# Prepared in the eighth session, not run (build its inputs with
# prepare-next.sh). qback (qback-variant.patch) against the shipped build:
#   prediction: with the Q slot back, m128d loses nothing on the batches of
#   short tiles (call 8: seed13 +6.5%, 64 x 512 +7.8%, 16 x 512 +7.7%,
#   batch16x2048 +3.8% with m128d forced) and keeps the deep ring's gains;
#   the direct 4-byte stores cost at most ~1% where units are short.
# First correctness (GPU tests and reliability with the variant cubin, every
# configuration forced in them; memcheck and racecheck), then two rounds of
# shipped (auto) / qback (auto) / shipped --tile m128d / qback --tile m128d
# on the rows that take a 128-row configuration.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
for d in /usr/local/cuda/bin /usr/local/cuda/compute-sanitizer; do [ -d "$d" ] && PATH="$PATH:$d"; done
t0=$(date +%s)
V=$D/var/qback.cubin
PAGEDATTN_ATTENTION_CUBIN=$V timeout 150 $D/gpu_tests --include-ignored --test-threads=1 --nocapture > "$OUT/gpu_tests.log" 2>&1
echo "gpu_tests (qback) rc=$? $(grep -E '^test result' $OUT/gpu_tests.log) $(( $(date +%s) - t0 ))s"
grep -E "panicked|FAILED" "$OUT/gpu_tests.log" | head -6
PAGEDATTN_ATTENTION_CUBIN=$V timeout 90 $D/gpu_reliability --include-ignored --test-threads=1 --nocapture > "$OUT/gpu_reliability.log" 2>&1
echo "gpu_reliability (qback) rc=$? $(grep -E '^test result' $OUT/gpu_reliability.log) $(( $(date +%s) - t0 ))s"
for plan in device host; do
  for tool in memcheck racecheck; do
    timeout 45 compute-sanitizer --tool $tool --error-exitcode 9 $D/pagedattn check --backend cuda --cpu-ref-max-pairs 0 \
      --attention-cubin $V --tile m128d --plan $plan --workloads $D/split.jsonl --generated 6 > "$OUT/san_${plan}_$tool.log" 2>&1
    echo "$tool (qback, m128d, $plan plan) rc=$? $(grep -E 'SUMMARY' $OUT/san_${plan}_$tool.log | tail -1) | $(( $(date +%s) - t0 ))s"
  done
done
W=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/shapes.jsonl --workloads $D/prefix.jsonl
   --filter seed07 --filter seed08 --filter seed10 --filter seed11 --filter seed13 --filter seed15 --filter seed19
   --filter scale --filter prefix --filter seq2048 --filter b16x512)
AB_ROUNDS=2 AB_TIMEOUT=100 OUT=$OUT/ab bash scripts/device-ab.sh shipped=$D/pagedattn qback=$D/pagedattn@--attention-cubin=$V \
  deep=$D/pagedattn@--tile=m128d qbackdeep=$D/pagedattn@--attention-cubin=$V,--tile=m128d -- "${W[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"
cd "$OUT" && mkdir -p j && cp ab/*.json j/ 2>/dev/null
tar czf logs.tgz --exclude=logs.tgz --exclude=j * && tar czf json.tgz j && rm -rf ab j *.log
grep -vE "^\s*$" ab.txt | head -50
echo "total $(( $(date +%s) - t0 ))s"
