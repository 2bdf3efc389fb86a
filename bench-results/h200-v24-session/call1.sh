#!/usr/bin/env bash
# Eighteenth session, call 1 (carry ["dist", "dist-main"]; inputs from
# prepare1.sh: main's dist with holdout.jsonl, decode.jsonl and the
# diagnostic cubins dist/var/{nogather,stalekv,nosplitsync,unitcost}.cubin;
# dist-main/pagedattn built from 58d2020).
# Part 1 (the seventeenth session's call 5, part 1): prefers_m192 on 24
# held-out cached prefixes, three rounds against 58d2020's CLI.
#   Prediction: the 11 the rule picks 0.80-0.97; the other 13 bitwise equal.
# Part 2: what bounds the decode-like cached prefixes (16-64 queries over
# 4096-16384 keys, 2.4-3.0x their floor). decode.jsonl: the five rows with
# scattered pages and again with pages in key order (_seqpages); the shipped
# build, forced finer splits, and diagnostics that remove one cost each:
# nogather (no page ids, contiguous rows), stalekv (no K/V bytes after a
# CTA's first 8 blocks), nosplitsync (no partial write, count or merge).
#   Prediction: the rows are bound by the scattered 256-byte rows' DRAM
#   reads: _seqpages and nogather 25-40% faster, stalekv faster still;
#   nosplitsync 5-10%. Finer splits lose except on q32_kv16384_b2 (128 units
#   on 132 CTAs).
# Part 3: ncu (memory and warp state) on prefix_q16_kv4096_b8 and its
# _seqpages twin; the unitcost account of the same row (m128d, no split).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files ab sp ncu uc 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv,noheader
B=dist/pagedattn; V=dist/var
F=(--workloads dist/decode.jsonl)
AB_ROUNDS=2 AB_TIMEOUT=150 OUT=$OUT/sp bash scripts/device-ab.sh auto=$B \
  "nogather=$B@--attention-cubin=$V/nogather.cubin,--no-check" \
  "stalekv=$B@--attention-cubin=$V/stalekv.cubin,--no-check" \
  "nosync=$B@--attention-cubin=$V/nosplitsync.cubin,--no-check" \
  "s256=$B@--split=2" "s512=$B@--split=4" "m192s512=$B@--tile=m192,--split=8" \
  "nosplit=$B@--split=never" -- "${F[@]}" > "$OUT/decode.txt" 2>&1
grep -vE "^\s*$" "$OUT/decode.txt" | grep -v "rc=0"
echo "decode $(( $(date +%s) - t0 ))s"
AB_ROUNDS=3 AB_TIMEOUT=120 OUT=$OUT/ab bash scripts/device-ab.sh main=dist-main/pagedattn new=$B \
  -- --workloads dist/holdout.jsonl > "$OUT/holdout.txt" 2>&1
grep -vE "^\s*$" "$OUT/holdout.txt" | grep -v "rc=0"
echo "holdout $(( $(date +%s) - t0 ))s"
PATH=$PATH:/usr/local/cuda/bin; for d in /opt/nvidia/nsight-compute/*/; do PATH=$PATH:$d; done
mkdir -p "$OUT/ncu"
for w in prefix_q16_kv4096_b8 prefix_q16_kv4096_b8_seqpages; do
  timeout 45 ncu --clock-control none --kernel-name regex:paged_prefill --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats \
    --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables -o "$OUT/ncu/$w" \
    $B bench --backend cuda --no-check --reps 1 --warmup 0 --cuda-timing checked \
    "${F[@]}" --filter "$w" > "$OUT/ncu/$w.txt" 2>&1 \
    && ncu -i "$OUT/ncu/$w.ncu-rep" --page details > "$OUT/ncu/${w}_details.txt" 2>&1
  echo "$w rc=$?"; grep -E "Duration|Compute \(SM\) Throughput|DRAM Throughput|L2 Hit|L1/TEX Hit|Mem Busy|Max Bandwidth|Registers Per|Grid Size|No Eligible|Issued Warp|SM Frequency" "$OUT/ncu/${w}_details.txt" | head -16
  rm -f "$OUT/ncu/$w.ncu-rep"
done
echo "ncu $(( $(date +%s) - t0 ))s"
mkdir -p "$OUT/uc"
for w in prefix_q16_kv4096_b8 prefix_q16_kv4096_b8_seqpages; do
  timeout 60 python3 scripts/unitcost.py $V/unitcost.cubin dist/decode.jsonl $w --kernel m128d --reps 10 \
    --json "$OUT/uc/$w.json" > "$OUT/uc/$w.txt" 2>&1
  echo "uc $w rc=$?"; tail -30 "$OUT/uc/$w.txt"
done
echo "--- decode table"; sed -n '/^| workload/,$p' "$OUT/decode.txt" | head -30
echo "--- holdout table"; sed -n '/^| workload/,$p' "$OUT/holdout.txt" | head -40
