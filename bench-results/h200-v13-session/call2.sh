#!/usr/bin/env bash
# Device call 2 (seventh session).
#   base      the shipped kernel (7418975)
#   spec2     call 1's fast path, and where it fails, the reference moved
#             up by a power of two in registers (rebase) before falling back
#             to recomputing S (call 1's spec recomputed every failing block,
#             and a reference left low failed every later block)
# GPU tests and reliability tests on spec2, then three rounds of both on
# seed + scale + prefix.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
t0=$(date +%s)
PAGEDATTN_ATTENTION_CUBIN=$D/var/spec2.cubin timeout 200 $D/gpu_tests --include-ignored --test-threads=1 --nocapture > "$OUT/gpu_tests.log" 2>&1
echo "gpu_tests (spec2) rc=$? $(grep -E '^test result' $OUT/gpu_tests.log) $(( $(date +%s) - t0 ))s"
grep -E "panicked|FAILED|late reference" "$OUT/gpu_tests.log" | head -8
PAGEDATTN_ATTENTION_CUBIN=$D/var/spec2.cubin timeout 90 $D/gpu_reliability --include-ignored --test-threads=1 --nocapture > "$OUT/gpu_reliability.log" 2>&1
echo "gpu_reliability (spec2) rc=$? $(grep -E '^test result' $OUT/gpu_reliability.log) $(( $(date +%s) - t0 ))s"
grep -E "panicked|FAILED" "$OUT/gpu_reliability.log" | head -5
W=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/prefix.jsonl)
cfg() { echo "$1=$D/pagedattn@--attention-cubin=$D/var/$1.cubin"; }
left=$(( 560 - ($(date +%s) - t0) ))
AB_ROUNDS=3 AB_TIMEOUT=$(( left / 6 )) OUT=$OUT/ab bash scripts/device-ab.sh $(cfg base) $(cfg spec2) -- "${W[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"
cd "$OUT" && mkdir -p j && cp ab/*.json j/ 2>/dev/null
tar czf logs.tgz --exclude=logs.tgz --exclude=j * && tar czf json.tgz j && rm -rf ab j *.log
cat ab.txt | grep -vE "^\s*$" | head -80
echo "total $(( $(date +%s) - t0 ))s"
