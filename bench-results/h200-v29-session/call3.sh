#!/usr/bin/env bash
# Call 3: the row split on a fresh draw (--row-decode: 20 decode-like calls of
# one or two queries a sequence, drawn after the rule was fitted) and on the
# first and fourth short-decode draws, v17.5 (base-pagedattn) against this
# build, three rounds, FlashInfer fa2/fa3 beside; the main sets' many-unit
# rows (2-9% slower in call 2 with a 4-byte producer spill in m64, gone in
# this build), three rounds. Carry ["dist", ".peers"].
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files ab abm peer *.log 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
for m in row-decode short-decode short-decode-holdout3; do python3 scripts/make-sweep-workloads.py --$m dist/$m.jsonl > /dev/null; done
P=dist/pagedattn
export FLASHINFER_DISABLE_JIT=1
OUT="$OUT/peer" timeout 150 bash .peers/flashinfer/device_run.sh --workloads rdec=dist/row-decode.jsonl \
  sdec=dist/short-decode.jsonl sdh3=dist/short-decode-holdout3.jsonl \
  --backends fa2,fa3 --deadline-s 130 --target-ms 30 --no-prebuild > "$OUT/peer.log" 2>&1
echo "peer rc=$? $(( $(date +%s) - t0 ))s"
AB_ROUNDS=3 AB_PEER=$OUT/peer/results.json AB_TIMEOUT=60 OUT=$OUT/ab bash scripts/device-ab.sh base=dist/base-pagedattn new=$P \
  -- --workloads dist/row-decode.jsonl --workloads dist/short-decode.jsonl --workloads dist/short-decode-holdout3.jsonl > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$OUT/ab.txt" | head -2; sed -n '/^| workload/,$p' "$OUT/ab.txt"
python3 scripts/make-shapes-workloads.py --serving dist/serving.jsonl > /dev/null
AB_ROUNDS=3 AB_TIMEOUT=100 OUT=$OUT/abm bash scripts/device-ab.sh base=dist/base-pagedattn new=$P -- --workloads dist/seed.jsonl --workloads dist/scale.jsonl \
  --workloads dist/shapes.jsonl --workloads dist/serving.jsonl --filter seed09 --filter seed1 --filter tiny --filter q_gt \
  --filter empty --filter serving_mix --filter scale_batch64 > "$OUT/abm.txt" 2>&1
echo "main rows $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$OUT/abm.txt" | head -2; sed -n '/^| workload/,$p' "$OUT/abm.txt"
mkdir -p "$OUT/j" && for f in "$OUT"/abm/*.json; do cp "$f" "$OUT/j/abm-$(basename "$f")"; done; for f in "$OUT"/ab/*.json; do cp "$f" "$OUT/j/ab-$(basename "$f")"; done; cp "$OUT"/peer/results.json "$OUT/j/flashinfer-peer.json" 2>/dev/null
(cd "$OUT" && tar czf json.tgz j && rm -rf j)
