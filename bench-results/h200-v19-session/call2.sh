#!/usr/bin/env bash
# Thirteenth session, call 2 (carry ["dist", ".peers"]; about 9 minutes):
# the new shipped build (pcopy in the kernel: the two-slot kernels'
# producer copies a unit's staged output out, call 1 measured it 2.3%
# faster on seed) checked (GPU tests, reliability, the four sanitizers on
# both plans), then the table as the eleventh session's call 2: ours round
# 1, FlashInfer 0.7.2.post1 fa2/fa3 on seed + scale + shapes, ours round 2,
# the dense anchor on the long rows, ours round 3 if time is left.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
t0=$(date +%s)
TESTS_TIMEOUT=150 REL_TIMEOUT=90 SANITIZERS="memcheck racecheck synccheck initcheck" SAN_TIMEOUT=45 \
  bash scripts/device-run.sh tests reliability sanitize-plans > "$OUT/checks.txt" 2>&1
echo "checks $(( $(date +%s) - t0 ))s"; sed -n '/^=== summary/,$p' "$OUT/checks.txt"
W=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/shapes.jsonl --workloads $D/prefix.jsonl)
AB_TIMEOUT=150 OUT=$OUT/r1 bash scripts/device-ab.sh ours=$D/pagedattn -- "${W[@]}" > "$OUT/ab-r1.txt" 2>&1
echo "ours r1 $(( $(date +%s) - t0 ))s"
extra=(); if [ -f .peers/flashinfer/pkgs/aot_so.tar.xz ]; then extra=(--no-prebuild); export FLASHINFER_DISABLE_JIT=1; fi
OUT="$OUT/peer" timeout 230 bash .peers/flashinfer/device_run.sh --workloads seed=$D/seed.jsonl scale=$D/scale.jsonl shapes=$D/shapes.jsonl \
  --backends fa2,fa3 --deadline-s 205 --target-ms 40 "${extra[@]}" > "$OUT/peer.log" 2>&1
echo "peer rc=$? $(( $(date +%s) - t0 ))s"; tail -2 "$OUT/peer.log"
AB_TIMEOUT=120 OUT=$OUT/r2 bash scripts/device-ab.sh ours=$D/pagedattn -- "${W[@]}" > "$OUT/ab-r2.txt" 2>&1
echo "ours r2 $(( $(date +%s) - t0 ))s"
OUT=$OUT/dense timeout 80 python3 bench/python/dense_anchor.py > "$OUT/dense.log" 2>&1
echo "dense rc=$? $(( $(date +%s) - t0 ))s"; grep -E "^\|" "$OUT/dense.log" | head -12
rs="r1 r2"
if [ $(( $(date +%s) - t0 )) -lt 500 ]; then
  AB_TIMEOUT=80 OUT=$OUT/r3 bash scripts/device-ab.sh ours=$D/pagedattn -- "${W[@]}" > "$OUT/ab-r3.txt" 2>&1
  echo "ours r3 $(( $(date +%s) - t0 ))s"; rs="r1 r2 r3"
fi
cd "$OUT" && mkdir -p j && for r in $rs; do for f in $r/ab-*.json; do cp $f j/$r-$(basename $f); done; done
cp peer/results.json j/flashinfer-peer.json 2>/dev/null; cp dense/dense_anchor.json j/ 2>/dev/null
tar czf logs.tgz --exclude=logs.tgz --exclude=j --exclude=checks.txt * && tar czf json.tgz j && rm -rf r1 r2 r3 peer dense j *.log
grep -E "seed0[0-2]|seed07|seed11|seed18|scale_single|batch" ab-r2.txt | head -20
echo "total $(( $(date +%s) - t0 ))s"
