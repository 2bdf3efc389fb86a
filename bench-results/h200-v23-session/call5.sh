#!/usr/bin/env bash
# Seventeenth session, call 5 (carry ["dist", "dist-main"]; about 2
# minutes, what the session's device time left): does prefers_m192 hold
# on cached prefixes it was not fitted on?
# dist/holdout.jsonl (scripts/make-sweep-workloads.py --holdout): 24 calls,
# lengths jittered within a call; the rule picks m192 on 11 of them.
# Three rounds, main's CLI (58d2020) against this build.
# Prediction: the 11 picked 0.80-0.97; the other 13 bitwise equal, within 1%.
# Then ncu on one cached-prefix row the 128-row tiles keep (decode-like:
# 16 queries over 4096 keys, 2.4x its floor), for the next session's account.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
AB_ROUNDS=3 AB_TIMEOUT=120 OUT=$OUT/ab bash scripts/device-ab.sh main=dist-main/pagedattn new=dist/pagedattn \
  -- --workloads dist/holdout.jsonl > "$OUT/ab.txt" 2>&1
grep -vE "^\s*$" "$OUT/ab.txt" | grep -v "rc=0"
(cd "$OUT" && tar czf ab.tgz ab && rm -rf ab)
echo "ab $(( $(date +%s) - t0 ))s"
PATH=$PATH:/usr/local/cuda/bin; for d in /opt/nvidia/nsight-compute/*/; do PATH=$PATH:$d; done
for w in prefix_q16_kv4096_b8; do
  timeout 45 ncu --clock-control none --kernel-name regex:paged_prefill --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats \
    --section MemoryWorkloadAnalysis -o "$OUT/row_$w" \
    dist/pagedattn bench --backend cuda --no-check --reps 1 --warmup 0 --cuda-timing checked \
    --workloads dist/prefix.jsonl --workloads dist/shapes.jsonl --filter "$w" > "$OUT/row_$w.txt" 2>&1 \
    && ncu -i "$OUT/row_$w.ncu-rep" --page details > "$OUT/row_${w}_details.txt" 2>&1
  echo "$w rc=$?"; grep -E "Duration|Compute \(SM\) Throughput|DRAM Throughput|L2 Cache Throughput|Memory Throughput|Registers|Grid Size|No Eligible|Issued Warp" "$OUT/row_${w}_details.txt" | head -12
  rm -f "$OUT/row_$w.ncu-rep"
done
(cd "$OUT" && tar czf ncu.tgz row_* && rm -f row_*)
echo "total $(( $(date +%s) - t0 ))s"
