#!/usr/bin/env bash
# Device call 3 (eighth session): the table. This tree's build (dist/:
# kernel of 2a5c4c9, host code of 604c123) beside 7c9e025's binary
# (dist/7c9e025/pagedattn, built from that commit) on seed + scale + shapes
# + prefix, one round; FlashInfer 0.7.2.post1 fa2/fa3 on seed + scale +
# shapes (its harness stalls on prefix.jsonl).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
t0=$(date +%s)
W=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/shapes.jsonl --workloads $D/prefix.jsonl)
AB_TIMEOUT=150 OUT=$OUT/r1 bash scripts/device-ab.sh v7c=$D/7c9e025/pagedattn new=$D/pagedattn -- "${W[@]}" > "$OUT/ab-r1.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"
extra=(); if [ -f .peers/flashinfer/pkgs/aot_so.tar.xz ]; then extra=(--no-prebuild); export FLASHINFER_DISABLE_JIT=1; fi
left=$(( 560 - ($(date +%s) - t0) )); [ $left -lt 20 ] && left=20
OUT="$OUT/peer" timeout $left bash .peers/flashinfer/device_run.sh --workloads seed=$D/seed.jsonl scale=$D/scale.jsonl shapes=$D/shapes.jsonl \
  --backends fa2,fa3 --deadline-s $(( left - 25 )) --target-ms 40 "${extra[@]}" > "$OUT/peer.log" 2>&1
echo "peer rc=$? $(( $(date +%s) - t0 ))s"; tail -2 "$OUT/peer.log"
cd "$OUT" && mkdir -p j && for f in r1/ab-*.json; do cp $f j/r1-$(basename $f); done
cp peer/results.json j/flashinfer-peer.json 2>/dev/null
tar czf logs.tgz --exclude=logs.tgz --exclude=j * && tar czf json.tgz j && rm -rf r1 peer j *.log
grep -vE "^\s*$" ab-r1.txt | head -70
echo "total $(( $(date +%s) - t0 ))s"
