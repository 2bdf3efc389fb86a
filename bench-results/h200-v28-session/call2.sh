#!/usr/bin/env bash
# Call 2: finer splits on short decode-like calls (make-sweep-workloads.py
# --short-decode, and the wide draw's rows near 1.0): auto against m128dv
# with chunks of 2, 3 and 4 blocks (256-512 keys) and m64 with 4 and 8
# (256 and 512 keys) forced; FlashInfer fa2/fa3 on the
# short-decode set first (its column in the table). Carry ["dist", ".peers"].
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files ab peer *.log 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
python3 scripts/make-sweep-workloads.py --short-decode dist/short-decode.jsonl
python3 scripts/make-shapes-workloads.py --wide dist/wide.jsonl
W=(--workloads dist/short-decode.jsonl --workloads dist/wide.jsonl --filter sdec --filter wide_decode --filter wide_prefix3 --filter wide_prefix5)
P=dist/pagedattn
export FLASHINFER_DISABLE_JIT=1
OUT="$OUT/peer" timeout 120 bash .peers/flashinfer/device_run.sh --workloads sd=dist/short-decode.jsonl \
  --backends fa2,fa3 --deadline-s 100 --target-ms 30 --no-prebuild > "$OUT/peer.log" 2>&1
echo "peer rc=$? $(( $(date +%s) - t0 ))s"
AB_PEER=$OUT/peer/results.json AB_TIMEOUT=90 OUT=$OUT/ab bash scripts/device-ab.sh auto=$P dv2=$P@--tile=m128dv,--split=2 dv3=$P@--tile=m128dv,--split=3 \
  dv4=$P@--tile=m128dv,--split=4 dvn=$P@--tile=m128dv,--split=never m64s4=$P@--tile=m64,--split=4 m64s8=$P@--tile=m64,--split=8 \
  m64=$P@--tile=m64 -- "${W[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"; grep rc= "$OUT/ab.txt"
mkdir -p "$OUT/j" && cp "$OUT"/ab/*.json "$OUT/j/" && cp "$OUT"/peer/results.json "$OUT/j/flashinfer-peer.json" 2>/dev/null
(cd "$OUT" && tar czf json.tgz j && rm -rf j)
sed -n '/^| workload/,$p' "$OUT/ab.txt"
grep -E "^\| sdec" "$OUT/peer/log.txt" | head -30
