#!/usr/bin/env bash
# Device call 1 (fifth session): the masked softmax without a second select
# (variant dist/var/mask.cubin) and one CTA per tile with every call direct
# (host option), against HEAD's build (9750359) and the 7c9e025 binary, on
# seed + scale + shapes, two rounds; GPU tests and reliability on the variant.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
t0=$(date +%s)
export PAGEDATTN_ATTENTION_CUBIN=$D/var/mask.cubin
timeout 150 $D/gpu_tests --include-ignored --test-threads=1 > "$OUT/gpu_tests.log" 2>&1
echo "gpu_tests(mask) rc=$? $(grep -E '^test result' $OUT/gpu_tests.log) $(( $(date +%s) - t0 ))s"
grep -E "panicked|FAILED" "$OUT/gpu_tests.log" | head -5
unset PAGEDATTN_ATTENTION_CUBIN
W=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/shapes.jsonl)
M=--attention-cubin=$D/var/mask.cubin
AB_TIMEOUT=120 OUT=$OUT/r1 bash scripts/device-ab.sh base=$D/pagedattn mask=$D/pagedattn@$M \
  direct=$D/pagedattn@--one-cta-per-unit,--split=never maskdirect=$D/pagedattn@$M,--one-cta-per-unit,--split=never \
  old7c=$D/old7c/pagedattn -- "${W[@]}" > "$OUT/ab-r1.txt" 2>&1
head -6 "$OUT/ab-r1.txt"; echo "round 1 $(( $(date +%s) - t0 ))s"
AB_TIMEOUT=120 OUT=$OUT/r2 bash scripts/device-ab.sh mask=$D/pagedattn@$M base=$D/pagedattn \
  maskdirect=$D/pagedattn@$M,--one-cta-per-unit,--split=never -- "${W[@]}" > "$OUT/ab-r2.txt" 2>&1
head -6 "$OUT/ab-r2.txt"; echo "round 2 $(( $(date +%s) - t0 ))s"
export PAGEDATTN_ATTENTION_CUBIN=$D/var/mask.cubin
left=$(( 560 - ($(date +%s) - t0) )); [ $left -lt 10 ] && left=10
timeout $left $D/gpu_reliability --include-ignored --test-threads=1 > "$OUT/gpu_rel.log" 2>&1
echo "gpu_reliability(mask) rc=$? $(grep -E '^test result' $OUT/gpu_rel.log) $(( $(date +%s) - t0 ))s"
grep -E "panicked|FAILED" "$OUT/gpu_rel.log" | head -5
cd "$OUT" && mkdir -p j && for r in 1 2; do for f in r$r/ab-*.json; do cp $f j/r$r-$(basename $f); done; done
tar czf logs.tgz --exclude=logs.tgz --exclude=j * && tar czf json.tgz j && rm -rf r1 r2 j *.log
ls; echo "total $(( $(date +%s) - t0 ))s"
