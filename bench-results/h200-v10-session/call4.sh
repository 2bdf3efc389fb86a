#!/usr/bin/env bash
# Device call 4 (final, kernel of e0aa65f, host code of be8fb4d): ours with the
# host plan (two rounds) and with the device plan, the 7c9e025 binary, and
# FlashInfer 0.7.2.post1 (fa2, fa3) on seed + scale + shapes; GPU tests;
# then the Python package: GPU pytest, the dense anchor and FlashInfer-Bench.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
t0=$(date +%s)
W=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/shapes.jsonl)
AB_TIMEOUT=120 OUT=$OUT/a bash scripts/device-ab.sh old7c=$D/old7c/pagedattn host=$D/pagedattn dev=$D/pagedattn@--plan=device host2=$D/pagedattn \
  -- "${W[@]}" > "$OUT/ab.txt" 2>&1
head -5 "$OUT/ab.txt"; echo "ours done $(( $(date +%s) - t0 ))s"
extra=(); if [ -f .peers/flashinfer/pkgs/aot_so.tar.xz ]; then extra=(--no-prebuild); export FLASHINFER_DISABLE_JIT=1; fi
OUT="$OUT/peer" timeout 200 bash .peers/flashinfer/device_run.sh --workloads seed=$D/seed.jsonl scale=$D/scale.jsonl shapes=$D/shapes.jsonl \
  --backends fa2,fa3 --deadline-s 150 --target-ms 60 "${extra[@]}" > "$OUT/peer.log" 2>&1
echo "peer rc=$? $(( $(date +%s) - t0 ))s"; tail -2 "$OUT/peer.log"
timeout 120 $D/gpu_tests --include-ignored --test-threads=1 > "$OUT/gpu_tests.log" 2>&1
echo "gpu_tests rc=$? $(grep -E '^test result' $OUT/gpu_tests.log) $(( $(date +%s) - t0 ))s"
OUT=$OUT/py timeout 240 bash scripts/device-python.sh pytest dense suite > "$OUT/py.txt" 2>&1
echo "python rc=$? $(( $(date +%s) - t0 ))s"; grep -A6 "=== summary" "$OUT/py.txt"
cd "$OUT" && mkdir -p j && cp a/ab-*.json j/ && cp peer/results.json j/flashinfer-peer.json 2>/dev/null
cp py/suite/suite_results.json j/ 2>/dev/null; cp py/suite/suite_results.md j/ 2>/dev/null; cp py/dense*.json j/ 2>/dev/null
tar czf logs.tgz --exclude=logs.tgz --exclude=j --exclude='*.ncu-rep' * && tar czf json.tgz j && rm -rf a peer py j *.log
ls; echo "total $(( $(date +%s) - t0 ))s"
