#!/usr/bin/env bash
# Seventeenth session, call 5: NOT RUN (the session's device time ran out);
# for the next session (carry ["dist", "dist-main"]: dist from main with
# dist/holdout.jsonl from `python3 scripts/make-sweep-workloads.py
# --holdout`, dist-main/pagedattn from 58d2020; about 3 minutes).
# Part 1: does prefers_m192 hold on cached prefixes it was not fitted on?
# dist/holdout.jsonl (scripts/make-sweep-workloads.py --holdout): 24 calls,
# lengths jittered within a call; the rule picks m192 on 11 of them.
# Three rounds, main's CLI (58d2020) against this build.
# Prediction: the 11 picked 0.80-0.97; the other 13 bitwise equal, within 1%.
# Part 2: ncu on one cached-prefix row the 128-row tiles keep (decode-like:
# 16 queries over 4096 keys, 2.4x its floor), for an account of such rows.
# Part 3: finer splits on the decode-like rows (no code: forced --split),
# two rounds: m128d's 256- and 512-key chunks, m192 forced with 512- and
# 1024-key chunks, against auto (1024 keys and up, at most 16 chunks).
# Prediction: the split estimate (a chunk costs ~4 blocks of sync) says
# finer chunks lose; where auto leaves CTAs idle (2 x 32 over 16384: 128
# units on 132 CTAs) the finer ones may win.
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
F=(--filter prefix_q16_kv4096_b8 --filter prefix_q32_kv4096_b8 --filter prefix_q64_kv4096_b4 \
   --filter prefix_q32_kv16384_b2 --filter prefix_b1_q64_kv16384)
AB_ROUNDS=2 AB_TIMEOUT=90 OUT=$OUT/sp bash scripts/device-ab.sh auto=dist/pagedattn s256=dist/pagedattn@--split=2 \
  s512=dist/pagedattn@--split=4 m192s512=dist/pagedattn@--tile=m192,--split=8 m192s1024=dist/pagedattn@--tile=m192,--split=16 \
  -- --workloads dist/prefix.jsonl --workloads dist/shapes.jsonl "${F[@]}" > "$OUT/splits.txt" 2>&1
grep -vE "^\s*$" "$OUT/splits.txt" | grep -v "rc=0"
(cd "$OUT" && tar czf sp.tgz sp && rm -rf sp)
echo "total $(( $(date +%s) - t0 ))s"
