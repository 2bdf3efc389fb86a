#!/usr/bin/env bash
# The tenth session's call 5 (carry ["dist", ".peers"]; about 3 minutes):
# the scale rows again, ours three rounds around FlashInfer fa2/fa3, because
# call 3 had scale_single_8192 at 711 / 663 us in its two rounds and
# scale_batch16x2048 at 1.009 of FlashInfer. Shipped build (as call 3).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
t0=$(date +%s)
W=(--workloads $D/scale.jsonl)
AB_TIMEOUT=100 OUT=$OUT/r1 bash scripts/device-ab.sh ours=$D/pagedattn -- "${W[@]}" > "$OUT/ab-r1.txt" 2>&1
echo "ours r1 $(( $(date +%s) - t0 ))s"
extra=(); if [ -f .peers/flashinfer/pkgs/aot_so.tar.xz ]; then extra=(--no-prebuild); export FLASHINFER_DISABLE_JIT=1; fi
OUT="$OUT/peer" timeout 200 bash .peers/flashinfer/device_run.sh --workloads scale=$D/scale.jsonl \
  --backends fa2,fa3 --deadline-s 180 --target-ms 40 "${extra[@]}" > "$OUT/peer.log" 2>&1
echo "peer rc=$? $(( $(date +%s) - t0 ))s"; tail -2 "$OUT/peer.log"
for r in r2 r3; do
  AB_TIMEOUT=100 OUT=$OUT/$r bash scripts/device-ab.sh ours=$D/pagedattn -- "${W[@]}" > "$OUT/ab-$r.txt" 2>&1
  echo "ours $r $(( $(date +%s) - t0 ))s"
done
cd "$OUT" && mkdir -p j && for r in r1 r2 r3; do cp $r/ab-ours.json j/$r-ab-ours.json; done
cp peer/results.json j/flashinfer-peer.json 2>/dev/null
tar czf logs.tgz --exclude=logs.tgz --exclude=j * && tar czf json.tgz j && rm -rf r1 r2 r3 peer *.log
for r in r1 r2 r3; do grep -E "scale_" ab-$r.txt | head -8; done
echo "total $(( $(date +%s) - t0 ))s"
