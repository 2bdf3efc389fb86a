#!/usr/bin/env bash
# The eleventh session's call 2 (carry ["dist", ".peers"]; about 6 minutes):
# the table on the new shipped build (747034f: fewsteps + posonly in the
# kernel), as the tenth session's call 3 without its ncu part: ours on seed +
# scale + shapes + prefix, round 1; FlashInfer 0.7.2.post1 fa2/fa3 on seed +
# scale + shapes; ours round 2; the dense anchor (PyTorch SDPA, cuDNN and
# flash backends, no paging) on the long rows; ours round 3 if time is left.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
t0=$(date +%s)
W=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/shapes.jsonl --workloads $D/prefix.jsonl)
AB_TIMEOUT=150 OUT=$OUT/r1 bash scripts/device-ab.sh ours=$D/pagedattn -- "${W[@]}" > "$OUT/ab-r1.txt" 2>&1
echo "ours r1 $(( $(date +%s) - t0 ))s"
extra=(); if [ -f .peers/flashinfer/pkgs/aot_so.tar.xz ]; then extra=(--no-prebuild); export FLASHINFER_DISABLE_JIT=1; fi
OUT="$OUT/peer" timeout 240 bash .peers/flashinfer/device_run.sh --workloads seed=$D/seed.jsonl scale=$D/scale.jsonl shapes=$D/shapes.jsonl \
  --backends fa2,fa3 --deadline-s 215 --target-ms 40 "${extra[@]}" > "$OUT/peer.log" 2>&1
echo "peer rc=$? $(( $(date +%s) - t0 ))s"; tail -2 "$OUT/peer.log"
AB_TIMEOUT=150 OUT=$OUT/r2 bash scripts/device-ab.sh ours=$D/pagedattn -- "${W[@]}" > "$OUT/ab-r2.txt" 2>&1
echo "ours r2 $(( $(date +%s) - t0 ))s"
OUT=$OUT/dense timeout 90 python3 bench/python/dense_anchor.py > "$OUT/dense.log" 2>&1
echo "dense rc=$? $(( $(date +%s) - t0 ))s"; grep -E "^\|" "$OUT/dense.log" | head -12
rs="r1 r2"
if [ $(( $(date +%s) - t0 )) -lt 480 ]; then
  AB_TIMEOUT=100 OUT=$OUT/r3 bash scripts/device-ab.sh ours=$D/pagedattn -- "${W[@]}" > "$OUT/ab-r3.txt" 2>&1
  echo "ours r3 $(( $(date +%s) - t0 ))s"; rs="r1 r2 r3"
fi
cd "$OUT" && mkdir -p j && for r in $rs; do for f in $r/ab-*.json; do cp $f j/$r-$(basename $f); done; done
cp peer/results.json j/flashinfer-peer.json 2>/dev/null; cp dense/dense_anchor.json j/ 2>/dev/null
tar czf logs.tgz --exclude=logs.tgz --exclude=j * && tar czf json.tgz j && rm -rf r1 r2 r3 peer dense j *.log
grep -E "seed0[0-2]|seed07|seed11|scale_single|batch16|prefix_b4" ab-r2.txt | head -20
echo "total $(( $(date +%s) - t0 ))s"
