#!/usr/bin/env bash
# Device call 1 (sixth session): variant cubins loaded by 65f74c0's CLI.
#   cur       the shipped kernel (65f74c0)
#   uni       wgmma descriptors from warp-uniform inputs (stage, slot and
#             warpgroup broadcast from lane 0): no R2UR before each HGMMA
#   uninosel  uni, and the m128 softmax without the second select too
#   unirel    uni, and the chunk count by one release/acquire atomic after
#             the warpgroup barrier instead of a fence in every thread
# Round 1 on seed + scale + shapes + prefix, round 2 (reversed order) on
# seed + scale; then the GPU tests on unirel.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
t0=$(date +%s)
W=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/shapes.jsonl --workloads $D/prefix.jsonl)
cfg() { echo "$1=$D/pagedattn@--attention-cubin=$D/var/$1.cubin"; }
AB_TIMEOUT=120 OUT=$OUT/r1 bash scripts/device-ab.sh $(cfg cur) $(cfg uni) $(cfg uninosel) $(cfg unirel) -- "${W[@]}" > "$OUT/ab-r1.txt" 2>&1
echo "round 1 $(( $(date +%s) - t0 ))s"
W2=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl)
AB_TIMEOUT=90 OUT=$OUT/r2 bash scripts/device-ab.sh $(cfg cur) $(cfg unirel) $(cfg uninosel) $(cfg uni) -- "${W2[@]}" > "$OUT/ab-r2.txt" 2>&1
echo "round 2 $(( $(date +%s) - t0 ))s"
left=$(( 575 - ($(date +%s) - t0) )); [ $left -lt 10 ] && left=10
PAGEDATTN_ATTENTION_CUBIN=$D/var/unirel.cubin timeout $left $D/gpu_tests --include-ignored --test-threads=1 --nocapture > "$OUT/gpu_tests.log" 2>&1
echo "gpu_tests (unirel) rc=$? $(grep -E '^test result' $OUT/gpu_tests.log) $(( $(date +%s) - t0 ))s"
grep -E "panicked|FAILED|^test .* ok$" "$OUT/gpu_tests.log" | head -14
cd "$OUT" && mkdir -p j && for r in 1 2; do for f in r$r/ab-*.json; do cp $f j/r$r-$(basename $f); done; done
tar czf logs.tgz --exclude=logs.tgz --exclude=j * && tar czf json.tgz j && rm -rf r1 r2 j *.log
cat ab-r1.txt; tail -n +5 ab-r2.txt | grep -E "seed0[0-9]|seed1[0-9]|scale|geomean"
echo "total $(( $(date +%s) - t0 ))s"
