#!/usr/bin/env bash
# Nineteenth session, call 1 (carry ["dist", ".peers"]; dist of main's tree
# trimmed to pagedattn and serving.jsonl): the serving set
# (`make-shapes-workloads.py --serving`: decode-like and serving-engine
# calls the table does not have) beside FlashInfer, and forced splits on its
# long decode-like rows.
#   Prediction: the one- and two-sequence decode-like rows
#   (long_b1_q1_kv32768, long_b1_q8_kv65536, long_b2_q32_kv32768) are the
#   furthest from their floor: m64 cuts each tile into at most 16 chunks, so
#   4-8 tiles make 64-128 units for 264 CTA slots; forced finer splits
#   faster there. Everything else below 1.0 of FlashInfer.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files ab1 ab2 peer *.log 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
B=dist/pagedattn
AB_TIMEOUT=150 OUT=$OUT/ab1 bash scripts/device-ab.sh ours=$B -- --workloads dist/serving.jsonl > "$OUT/ours-r1.txt" 2>&1
echo "ours r1 $(( $(date +%s) - t0 ))s"
extra=(); if [ -f .peers/flashinfer/pkgs/aot_so.tar.xz ]; then extra=(--no-prebuild); export FLASHINFER_DISABLE_JIT=1; fi
OUT="$OUT/peer" timeout 230 bash .peers/flashinfer/device_run.sh --workloads serving=dist/serving.jsonl \
  --backends fa2,fa3 --deadline-s 200 --target-ms 40 "${extra[@]}" > "$OUT/peer.log" 2>&1
echo "peer rc=$? $(( $(date +%s) - t0 ))s"; tail -n 2 "$OUT/peer.log"
cp "$OUT/peer/results.json" "$OUT/flashinfer-serving.json" 2>/dev/null
cp "$OUT/ab1/ab-ours.json" "$OUT/ours-r1.json" 2>/dev/null
AB_ROUNDS=2 AB_TIMEOUT=100 OUT=$OUT/ab2 bash scripts/device-ab.sh auto=$B s32=$B@--split=32 s16=$B@--split=16 \
  s8=$B@--split=8 -- --workloads dist/serving.jsonl --filter long_ --filter decode_b16 > "$OUT/splits.txt" 2>&1
cp "$OUT"/ab2/ab-*.json "$OUT/" 2>/dev/null
echo "splits $(( $(date +%s) - t0 ))s"
sed -n '/^| workload/,$p' "$OUT/ours-r1.txt" | head -20
sed -n '/^| workload/,$p' "$OUT/splits.txt" | head -10
