#!/usr/bin/env bash
# Device call 5: tile configuration and split size on cached-prefix calls
# (workloads/prefix.jsonl + the shapes set's prefix rows), beside FlashInfer.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
t0=$(date +%s)
W=(--workloads $D/prefix.jsonl --workloads $D/shapes.jsonl --filter prefix)
AB_TIMEOUT=100 OUT=$OUT/a bash scripts/device-ab.sh auto=$D/pagedattn m64=$D/pagedattn@--tile=m64 m128=$D/pagedattn@--tile=m128 \
  m128s4=$D/pagedattn@--tile=m128,--split=4 m128s8=$D/pagedattn@--tile=m128,--split=8 m128s16=$D/pagedattn@--tile=m128,--split=16 \
  m64s16=$D/pagedattn@--tile=m64,--split=16 -- "${W[@]}" > "$OUT/ab.txt" 2>&1
head -8 "$OUT/ab.txt"; echo "ours done $(( $(date +%s) - t0 ))s"
extra=(); if [ -f .peers/flashinfer/pkgs/aot_so.tar.xz ]; then extra=(--no-prebuild); export FLASHINFER_DISABLE_JIT=1; fi
OUT="$OUT/peer" timeout 150 bash .peers/flashinfer/device_run.sh --workloads prefix=$D/prefix.jsonl \
  --backends fa2,fa3 --deadline-s 100 --target-ms 60 "${extra[@]}" > "$OUT/peer.log" 2>&1
echo "peer rc=$? $(( $(date +%s) - t0 ))s"
cd "$OUT" && mkdir -p j && cp a/ab-*.json j/ && cp peer/results.json j/flashinfer-peer-prefix.json 2>/dev/null
tar czf logs.tgz --exclude=logs.tgz --exclude=j * && tar czf json.tgz j && rm -rf a peer j *.log
ls; echo "total $(( $(date +%s) - t0 ))s"
