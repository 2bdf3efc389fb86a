#!/usr/bin/env bash
# Device call 3 (fifth session): the estimated-time automatic split with 4
# merge slots per CTA (this tree) against fca3978 (dist/prev: the split rule
# of 1.5x the mean work per CTA, 2 slots per CTA), two rounds on seed + scale
# + shapes + prefix; GPU tests on this build (the host/device plan mirror
# included); FlashInfer on seed + scale + shapes for the table.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
t0=$(date +%s)
timeout 150 $D/gpu_tests --include-ignored --test-threads=1 --nocapture > "$OUT/gpu_tests.log" 2>&1
echo "gpu_tests rc=$? $(grep -E '^test result' $OUT/gpu_tests.log) $(( $(date +%s) - t0 ))s"
grep -E "panicked|FAILED|host plan:|split-KV:" "$OUT/gpu_tests.log" | head -8
W=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/shapes.jsonl --workloads $D/prefix.jsonl)
AB_TIMEOUT=150 OUT=$OUT/r1 bash scripts/device-ab.sh prev=$D/prev/pagedattn new=$D/pagedattn -- "${W[@]}" > "$OUT/ab-r1.txt" 2>&1
echo "round 1 $(( $(date +%s) - t0 ))s"
AB_TIMEOUT=150 OUT=$OUT/r2 bash scripts/device-ab.sh new=$D/pagedattn prev=$D/prev/pagedattn -- "${W[@]}" > "$OUT/ab-r2.txt" 2>&1
echo "round 2 $(( $(date +%s) - t0 ))s"
cat "$OUT/ab-r1.txt" | tail -62
extra=(); if [ -f .peers/flashinfer/pkgs/aot_so.tar.xz ]; then extra=(--no-prebuild); export FLASHINFER_DISABLE_JIT=1; fi
left=$(( 570 - ($(date +%s) - t0) )); [ $left -lt 20 ] && left=20
OUT="$OUT/peer" timeout $left bash .peers/flashinfer/device_run.sh --workloads seed=$D/seed.jsonl scale=$D/scale.jsonl shapes=$D/shapes.jsonl \
  --backends fa2,fa3 --deadline-s $(( left - 30 )) --target-ms 60 "${extra[@]}" > "$OUT/peer.log" 2>&1
echo "peer rc=$? $(( $(date +%s) - t0 ))s"; tail -2 "$OUT/peer.log"
cd "$OUT" && mkdir -p j && for r in 1 2; do for f in r$r/ab-*.json; do cp $f j/r$r-$(basename $f); done; done
cp peer/results.json j/flashinfer-peer.json 2>/dev/null
tar czf logs.tgz --exclude=logs.tgz --exclude=j * && tar czf json.tgz j && rm -rf r1 r2 peer j *.log
ls; echo "total $(( $(date +%s) - t0 ))s"
