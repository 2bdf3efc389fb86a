#!/usr/bin/env bash
# Device call 7 (seventh session).
#   spec4     spec3 with each warp deciding alone: __all_sync votes instead
#             of the warpgroup barrier, and the overflow fallback recomputes
#             the warp's 16 rows of S with mma.sync from shared memory
#             (attn/warp_qk.cuh) instead of a warpgroup wgmma (a few spill
#             slots in m128, none on the fast path)
# GPU tests on spec4 (the late-reference test's x40 case overflows and takes
# the mma.sync fallback), then two rounds of spec3, spec4 and novote on
# seed + scale + prefix.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
t0=$(date +%s)
PAGEDATTN_ATTENTION_CUBIN=$D/var/spec4.cubin timeout 200 $D/gpu_tests --include-ignored --test-threads=1 --nocapture > "$OUT/gpu_tests.log" 2>&1
echo "gpu_tests (spec4) rc=$? $(grep -E '^test result' $OUT/gpu_tests.log) $(( $(date +%s) - t0 ))s"
grep -E "panicked|FAILED|late reference" "$OUT/gpu_tests.log" | head -8
PAGEDATTN_ATTENTION_CUBIN=$D/var/spec4.cubin timeout 90 $D/gpu_reliability --include-ignored --test-threads=1 --nocapture huge_logits nan_inf > "$OUT/gpu_reliability.log" 2>&1
echo "gpu_reliability huge_logits nan_inf (spec4) rc=$? $(grep -E '^test result' $OUT/gpu_reliability.log) $(( $(date +%s) - t0 ))s"
W=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/prefix.jsonl)
cfg() { echo "$1=$D/pagedattn@--attention-cubin=$D/var/$1.cubin"; }
AB_ROUNDS=2 AB_TIMEOUT=70 OUT=$OUT/ab bash scripts/device-ab.sh $(cfg spec3) $(cfg spec4) $(cfg novote) -- "${W[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"
cd "$OUT" && mkdir -p j && cp ab/*.json j/ 2>/dev/null
tar czf logs.tgz --exclude=logs.tgz --exclude=j * && tar czf json.tgz j && rm -rf ab j *.log
cat ab.txt | grep -vE "^\s*$" | head -80
echo "total $(( $(date +%s) - t0 ))s"
