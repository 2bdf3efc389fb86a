#!/usr/bin/env bash
# Nineteenth session, call 7 (carry ["dist"]: ac21ac3's dist with
# dist/var/{unitcost,nol2,nosplitsync}.cubin from scripts/variant-src.py).
# What bounds the decode rows above 1.0 (BENCHMARKS "What holds", the
# decode-like serving rows): diagnostics that remove one cost, ncu, unitcost.
#   Prediction: decode_b64_q1_kv4096 (one unit of 64 blocks a CTA): nol2
#   (no K/V bytes) 0.5-0.7 of its time if the K/V stream holds it, above
#   0.85 if the consumers' per-block chain does; ncu DRAM throughput 70-80%
#   of peak. long_b1_q1_kv32768 (32 chunks, one CTA an SM): nosplitsync
#   0.8-0.9 (the merge), nol2 0.6-0.8.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files ab ncu uc 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
B=dist/pagedattn; V=dist/var
F=(--workloads dist/serving.jsonl --filter decode_b64 --filter long_b1 --filter spec_b32 --filter decode_b256)
AB_ROUNDS=1 AB_TIMEOUT=100 OUT=$OUT/ab bash scripts/device-ab.sh ours=$B nol2=$B@--attention-cubin=$V/nol2.cubin \
  nss=$B@--attention-cubin=$V/nosplitsync.cubin -- "${F[@]}" > "$OUT/diag.txt" 2>&1
echo "diag $(( $(date +%s) - t0 ))s"
PATH=$PATH:/usr/local/cuda/bin; for d in /opt/nvidia/nsight-compute/*/; do PATH=$PATH:$d; done
mkdir -p "$OUT/ncu"
for w in decode_b64_q1_kv4096 long_b1_q1_kv32768; do
  timeout 60 ncu --clock-control none --kernel-name regex:paged_prefill --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats \
    --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables -o "$OUT/ncu/$w" \
    $B bench --backend cuda --no-check --reps 1 --warmup 0 --cuda-timing checked \
    --workloads dist/serving.jsonl --filter "$w" > "$OUT/ncu/$w.txt" 2>&1 \
    && ncu -i "$OUT/ncu/$w.ncu-rep" --page details > "$OUT/ncu/${w}_details.txt" 2>&1
  echo "$w rc=$?"; grep -E "Duration|Compute \(SM\) Throughput|DRAM Throughput|L2 Hit|Mem Busy|Max Bandwidth|No Eligible|Issued Warp|SM Frequency|Stall" "$OUT/ncu/${w}_details.txt" | head -14
  rm -f "$OUT/ncu/$w.ncu-rep"
done
echo "ncu $(( $(date +%s) - t0 ))s"
mkdir -p "$OUT/uc"
timeout 80 python3 scripts/unitcost.py $V/unitcost.cubin dist/serving.jsonl decode_b64_q1_kv4096 --kernel m64 --reps 10 \
  --json "$OUT/uc/decode_b64.json" > "$OUT/uc/decode_b64.txt" 2>&1; echo "uc decode_b64 rc=$?"; tail -22 "$OUT/uc/decode_b64.txt"
timeout 80 python3 scripts/unitcost.py $V/unitcost.cubin dist/serving.jsonl long_b1_q1_kv32768 --kernel m64 --split 0 --reps 10 \
  --json "$OUT/uc/long_b1.json" > "$OUT/uc/long_b1.txt" 2>&1; echo "uc long_b1 rc=$?"; tail -22 "$OUT/uc/long_b1.txt"
sed -n '/^| workload/,$p' "$OUT/diag.txt"
