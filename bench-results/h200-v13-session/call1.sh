#!/usr/bin/env bash
# Device call 1 (seventh session): variant cubins loaded by the CLI of this tree.
#   base      the shipped kernel (7418975)
#   spec      the softmax's fast path: unmasked blocks after the first take
#             their exponentials at the running reference max, no block max;
#             a warpgroup vote (partial sums < 2^8) keeps them, else S is
#             recomputed and the full step runs
#   d64       wgmma with 64-bit descriptors (desc64-variant.patch)
#   specd64   both
# GPU tests and reliability tests on spec first (correctness), then two
# rounds of the four builds on seed + scale + prefix.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
t0=$(date +%s)
PAGEDATTN_ATTENTION_CUBIN=$D/var/spec.cubin timeout 200 $D/gpu_tests --include-ignored --test-threads=1 --nocapture > "$OUT/gpu_tests.log" 2>&1
echo "gpu_tests (spec) rc=$? $(grep -E '^test result' $OUT/gpu_tests.log) $(( $(date +%s) - t0 ))s"
grep -E "panicked|FAILED|late reference" "$OUT/gpu_tests.log" | head -8
PAGEDATTN_ATTENTION_CUBIN=$D/var/base.cubin timeout 60 $D/gpu_tests --include-ignored --test-threads=1 --nocapture late_reference > "$OUT/gpu_tests_base_late.log" 2>&1
echo "late test (base) rc=$? $(grep -E '^test result' $OUT/gpu_tests_base_late.log) $(( $(date +%s) - t0 ))s"
PAGEDATTN_ATTENTION_CUBIN=$D/var/spec.cubin timeout 90 $D/gpu_reliability --include-ignored --test-threads=1 --nocapture > "$OUT/gpu_reliability.log" 2>&1
echo "gpu_reliability (spec) rc=$? $(grep -E '^test result' $OUT/gpu_reliability.log) $(( $(date +%s) - t0 ))s"
grep -E "panicked|FAILED" "$OUT/gpu_reliability.log" | head -5
W=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/prefix.jsonl)
cfg() { echo "$1=$D/pagedattn@--attention-cubin=$D/var/$1.cubin"; }
left=$(( 560 - ($(date +%s) - t0) ))
AB_ROUNDS=2 AB_TIMEOUT=$(( left / 8 )) OUT=$OUT/ab bash scripts/device-ab.sh $(cfg base) $(cfg spec) $(cfg d64) $(cfg specd64) -- "${W[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"
cd "$OUT" && mkdir -p j && cp ab/*.json j/ 2>/dev/null
tar czf logs.tgz --exclude=logs.tgz --exclude=j * && tar czf json.tgz j && rm -rf ab j *.log
cat ab.txt | grep -vE "^\s*$" | head -80
echo "total $(( $(date +%s) - t0 ))s"
