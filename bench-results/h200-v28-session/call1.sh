#!/usr/bin/env bash
# Call 1 (twenty-second session, main at the session's start + the wide
# draw): the fused-head gather microbenchmark; ours on the wide draw
# (make-shapes-workloads.py --wide, generated here) and the prefix set,
# FlashInfer fa2/fa3 on the same, ours again; then the wide draw with m64
# and m128dv forced if time is left. Carry ["dist", ".peers"].
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files r1 r2 forced peer *.log 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
nvcc -arch=sm_90a -O3 -std=c++17 -o /tmp/fused_gather bench/micro/fused_gather.cu && /tmp/fused_gather > "$OUT/fused_gather.md" 2>&1
cat "$OUT/fused_gather.md"; echo "micro $(( $(date +%s) - t0 ))s"
python3 scripts/make-shapes-workloads.py --wide dist/wide.jsonl
W=(--workloads dist/wide.jsonl --workloads dist/prefix.jsonl)
AB_TIMEOUT=150 OUT=$OUT/r1 bash scripts/device-ab.sh ours=dist/pagedattn -- "${W[@]}" > "$OUT/ab-r1.log" 2>&1
echo "r1 $(( $(date +%s) - t0 ))s"; grep rc= "$OUT/ab-r1.log"
export FLASHINFER_DISABLE_JIT=1
OUT="$OUT/peer" timeout 200 bash .peers/flashinfer/device_run.sh --workloads wide=dist/wide.jsonl prefix=dist/prefix.jsonl \
  --backends fa2,fa3 --deadline-s 175 --target-ms 40 --no-prebuild > "$OUT/peer.log" 2>&1
echo "peer rc=$? $(( $(date +%s) - t0 ))s"; tail -2 "$OUT/peer.log"
AB_TIMEOUT=120 OUT=$OUT/r2 bash scripts/device-ab.sh ours=dist/pagedattn -- "${W[@]}" > "$OUT/ab-r2.log" 2>&1
echo "r2 $(( $(date +%s) - t0 ))s"
mkdir -p "$OUT/j"; cp "$OUT"/r1/ab-ours.json "$OUT/j/r1-ab-ours.json"; cp "$OUT"/r2/ab-ours.json "$OUT/j/r2-ab-ours.json"
cp "$OUT"/peer/results.json "$OUT/j/flashinfer-peer.json" 2>/dev/null
(cd "$OUT" && tar czf json.tgz j)
python3 bench-results/h200-v17-session/mktable.py "$OUT" > "$OUT/table.md" 2>&1; rm -rf "$OUT/j"
grep -E "^\| wide|^geomean" "$OUT/table.md" | awk -F'|' '{print $2,$4,$5,$6,$9}' | head -60
if [ $(( $(date +%s) - t0 )) -lt 400 ]; then
  AB_TIMEOUT=100 OUT=$OUT/forced bash scripts/device-ab.sh auto=dist/pagedattn m64=dist/pagedattn@--tile=m64 \
    m128dv=dist/pagedattn@--tile=m128dv -- --workloads dist/wide.jsonl > "$OUT/forced.txt" 2>&1
  sed -n '/^| workload/,$p' "$OUT/forced.txt" | head -50
fi
