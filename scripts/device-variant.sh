#!/usr/bin/env bash
# A variant cubin through the checks and the timing of a kernel change, on
# the GPU machine, from dist/ (scripts/dist.sh, the cubin built by
# scripts/build-variant.sh):
#   bash scripts/device-variant.sh NAME dist/var/NAME.cubin
# 1. the GPU tests and reliability with the variant, and the sanitizers
#    ($SANITIZERS, default memcheck racecheck synccheck initcheck) through
#    the device and the host plan (scripts/device-run.sh tests reliability
#    sanitize-plans): checks.txt;
# 2. $AB_ROUNDS rounds (default 2) of the shipped build and the variant on
#    seed, scale, shapes and prefix (scripts/device-ab.sh, with digests):
#    ab.txt, json.tgz (the bench reports), logs.tgz.
# Everything lands in $OUT (default /tmp/out); the checks' summary and the
# A/B table print.
set -u
[ $# -eq 2 ] || { sed -n 2,13p "$0"; exit 2; }
name=$1; V=$2
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=${DIST:-dist}; B=$D/pagedattn
t0=$(date +%s)
PAGEDATTN_ATTENTION_CUBIN=$V TESTS_TIMEOUT=${TESTS_TIMEOUT:-150} REL_TIMEOUT=${REL_TIMEOUT:-90} \
  SANITIZERS=${SANITIZERS:-memcheck racecheck synccheck initcheck} SAN_CUBIN=$V SAN_TIMEOUT=${SAN_TIMEOUT:-45} \
  bash scripts/device-run.sh tests reliability sanitize-plans > "$OUT/checks.txt" 2>&1
echo "checks ($name) $(( $(date +%s) - t0 ))s"; sed -n '/^=== summary/,$p' "$OUT/checks.txt"
W=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/shapes.jsonl --workloads $D/prefix.jsonl)
AB_ROUNDS=${AB_ROUNDS:-2} AB_TIMEOUT=${AB_TIMEOUT:-150} OUT=$OUT/ab bash scripts/device-ab.sh shipped=$B \
  "$name=$B@--attention-cubin=$V" -- "${W[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"
(cd "$OUT" && mkdir -p j && cp ab/*.json j/ 2>/dev/null
 tar czf logs.tgz --exclude=logs.tgz --exclude=j --exclude=checks.txt --exclude=json.tgz * && tar czf json.tgz j && rm -rf ab j)
grep -vE "^\s*$" "$OUT/ab.txt" | grep -v "rc=0" | head -62
echo "total $(( $(date +%s) - t0 ))s"
