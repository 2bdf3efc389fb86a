#!/usr/bin/env bash
# Call 3: the one-wave fine split (ONE_WAVE_MIN_CHUNK_KEYS, host and
# kernel) against main's start (base-pagedattn): checks through both plans
# and m64 / m128dv forced on the short-decode sets and the wide draw; the
# A/B on them (auto, and m64 forced with the new split); FlashInfer on the
# short-decode sets. Carry ["dist", ".peers"].
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files ab peer *.log 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
python3 scripts/make-sweep-workloads.py --short-decode dist/short-decode.jsonl > /dev/null
python3 scripts/make-sweep-workloads.py --short-decode-holdout dist/short-decode-holdout.jsonl > /dev/null
python3 scripts/make-shapes-workloads.py --wide dist/wide.jsonl > /dev/null
W=(--workloads dist/short-decode.jsonl --workloads dist/short-decode-holdout.jsonl --workloads dist/wide.jsonl)
F=(--filter sdec --filter wide_decode --filter wide_prefix)
P=dist/pagedattn
for a in "--plan host" "--plan device" "--plan host --tile m64" "--plan device --tile m64" "--plan device --tile m128dv"; do
  timeout 60 $P check --backend cuda $a "${W[@]}" "${F[@]}" > "$OUT/check.log" 2>&1; echo "check $a: rc=$? $(grep -E '^[0-9]+ workloads?:' "$OUT/check.log")"
done
timeout 40 $P check --backend cuda --plan device --workloads dist/split.jsonl > "$OUT/check-split.log" 2>&1; echo "check split device: rc=$? $(grep -E '^[0-9]+ workloads?:' "$OUT/check-split.log")"
echo "checks $(( $(date +%s) - t0 ))s"
export FLASHINFER_DISABLE_JIT=1
OUT="$OUT/peer" timeout 110 bash .peers/flashinfer/device_run.sh --workloads sd=dist/short-decode.jsonl sdh=dist/short-decode-holdout.jsonl \
  --backends fa2,fa3 --deadline-s 95 --target-ms 30 --no-prebuild > "$OUT/peer.log" 2>&1
echo "peer rc=$? $(( $(date +%s) - t0 ))s"
AB_PEER=$OUT/peer/results.json AB_TIMEOUT=120 OUT=$OUT/ab bash scripts/device-ab.sh base=dist/base-pagedattn new=$P \
  m64=$P@--tile=m64 -- "${W[@]}" "${F[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"; grep rc= "$OUT/ab.txt"
mkdir -p "$OUT/j" && cp "$OUT"/ab/*.json "$OUT/j/" && cp "$OUT"/peer/results.json "$OUT/j/flashinfer-peer.json" 2>/dev/null
(cd "$OUT" && tar czf json.tgz j && rm -rf j)
sed -n '/^| workload/,$p' "$OUT/ab.txt"
