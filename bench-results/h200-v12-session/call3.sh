#!/usr/bin/env bash
# Device call 3 (sixth session): exp2 partly on the FMA pipe. Variant cubins
# loaded by 65f74c0's CLI, all with the warp-uniform descriptors:
#   uni      broadcast in both configurations (call 1's build)
#   uni128   broadcast in m128 only
#   polyK    uni, and K of the 64 (m128; K/2 of 32 in m64) exp2 of each thread
#            in unmasked blocks by a degree-3 polynomial (Cody-Waite split)
# Two rounds (reversed order) on seed + scale + shapes; then the GPU
# reliability tests (NaN / Inf inputs, extreme scales) on poly24.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
t0=$(date +%s)
W=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/shapes.jsonl)
cfg() { echo "$1=$D/pagedattn@--attention-cubin=$D/var/$1.cubin"; }
AB_TIMEOUT=100 OUT=$OUT/r1 bash scripts/device-ab.sh $(cfg uni) $(cfg uni128) $(cfg poly8) $(cfg poly16) $(cfg poly24) -- "${W[@]}" > "$OUT/ab-r1.txt" 2>&1
echo "round 1 $(( $(date +%s) - t0 ))s"
AB_TIMEOUT=100 OUT=$OUT/r2 bash scripts/device-ab.sh $(cfg uni) $(cfg poly24) $(cfg poly16) $(cfg poly8) $(cfg uni128) -- "${W[@]}" > "$OUT/ab-r2.txt" 2>&1
echo "round 2 $(( $(date +%s) - t0 ))s"
left=$(( 560 - ($(date +%s) - t0) )); [ $left -lt 10 ] && left=10
PAGEDATTN_ATTENTION_CUBIN=$D/var/poly24.cubin timeout $left $D/gpu_reliability --include-ignored --test-threads=1 > "$OUT/gpu_rel.log" 2>&1
echo "gpu_reliability (poly24) rc=$? $(grep -E '^test result' $OUT/gpu_rel.log) $(( $(date +%s) - t0 ))s"
grep -E "panicked|FAILED" "$OUT/gpu_rel.log" | head -8
cd "$OUT" && mkdir -p j && for r in 1 2; do for f in r$r/ab-*.json; do cp $f j/r$r-$(basename $f); done; done
tar czf logs.tgz --exclude=logs.tgz --exclude=j * && tar czf json.tgz j && rm -rf r1 r2 j *.log
cat ab-r1.txt; tail -n +5 ab-r2.txt
echo "total $(( $(date +%s) - t0 ))s"
