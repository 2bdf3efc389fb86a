#!/usr/bin/env bash
# Device call 6 (sixth session): the ping-pong turn passed right after the QK
# GEMM's issue, before the P V GEMM's (turnqk), against 7418975's kernel
# (head), both as cubins loaded by 7418975's CLI; two rounds on seed + scale
# + shapes.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
t0=$(date +%s)
W=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/shapes.jsonl)
cfg() { echo "$1=$D/pagedattn@--attention-cubin=$D/var/$1.cubin"; }
AB_TIMEOUT=100 OUT=$OUT/r1 bash scripts/device-ab.sh $(cfg head) $(cfg turnqk) -- "${W[@]}" > "$OUT/ab-r1.txt" 2>&1
AB_TIMEOUT=100 OUT=$OUT/r2 bash scripts/device-ab.sh $(cfg turnqk) $(cfg head) -- "${W[@]}" > "$OUT/ab-r2.txt" 2>&1
cd "$OUT" && mkdir -p j && for r in 1 2; do for f in r$r/ab-*.json; do cp $f j/r$r-$(basename $f); done; done
tar czf logs.tgz --exclude=logs.tgz --exclude=j * && tar czf json.tgz j && rm -rf r1 r2 j
cat ab-r1.txt; tail -n +3 ab-r2.txt
echo "total $(( $(date +%s) - t0 ))s"
