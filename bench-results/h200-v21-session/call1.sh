#!/usr/bin/env bash
# Fifteenth session, call 1 (carry ["dist"]; inputs from
# h200-v20-session/prepare-next.sh, plus dist/var/nogather.cubin from
# `scripts/variant-src.py nogather`; about 7 minutes).
# 1. seed09, the one row more than 3% slower than 7c9e025 (14.4 against
#    13.8 us), and the other m64 planned rows: 7c9e025's CLI (one CTA per
#    tile, no plan), the shipped build, and the shipped kernels launched one
#    CTA per tile (the direct entry, --one-cta-per-unit), three rounds.
#    Prediction: seed09 base 13.8 / shipped 14.4; the one-CTA-per-tile
#    launch at or under base on seed09 and the rows of 1-2-block units
#    (seed12, seed18, tiny_*), slower on rows whose units are long and
#    uneven (seed14, seed16, seed17), where the persistent grid's
#    longest-first order pays.
# 2. Power and clock at scale_single_16384 (scripts/power-probe.sh): ours,
#    the nogather diagnostic (contiguous rows, no page ids), cuDNN's dense
#    kernel, ours again. Prediction: all at the power cap; ours at a lower
#    clock than cuDNN's (1770-1815 against 1905-1965 MHz in the eleventh
#    session); nogather between them if the gather's loads draw the power.
# 3. One ncu profile of seed09 per build (base, shipped).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
t0=$(date +%s)
for d in /usr/local/cuda/bin /opt/nvidia/nsight-compute/*/; do [ -d "$d" ] && PATH="$PATH:$d"; done
F=(--filter seed05 --filter seed06 --filter seed09 --filter seed12 --filter seed14 --filter seed16 --filter seed17
   --filter seed18 --filter tiny_ --filter empty_and --filter q_gt_kv)
AB_ROUNDS=3 AB_TIMEOUT=60 OUT=$OUT/ab bash scripts/device-ab.sh base=$D/base/pagedattn shipped=$D/pagedattn \
  percta=$D/pagedattn@--one-cta-per-unit \
  -- --workloads $D/seed.jsonl --workloads $D/shapes.jsonl "${F[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"
P=(bench --backend cuda --no-check --workloads $D/scale.jsonl --filter scale_single_16384 --reps 1200 --warmup 20)
bash scripts/power-probe.sh ours16k -- timeout 60 $D/pagedattn "${P[@]}"
bash scripts/power-probe.sh nogather16k -- timeout 60 $D/pagedattn "${P[@]}" --attention-cubin $D/var/nogather.cubin
bash scripts/power-probe.sh cudnn16k -- timeout 90 python3 bench/python/dense_anchor.py --rows 16384 --reps 1200
bash scripts/power-probe.sh ours16k-2 -- timeout 60 $D/pagedattn "${P[@]}"
grep -hE "scale_single_16384|16384" "$OUT"/power-*.log | grep -E " us|us |\|" | head -8
echo "power $(( $(date +%s) - t0 ))s"
for b in base shipped; do
  bin=$D/pagedattn; [ $b = base ] && bin=$D/base/pagedattn
  timeout 90 ncu --clock-control none --kernel-name regex:paged_prefill --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats \
    "$bin" bench --backend cuda --no-check --reps 1 --warmup 0 --cuda-timing checked --workloads $D/seed.jsonl \
    --filter seed09 > "$OUT/ncu_$b.txt" 2>&1
  echo "$b rc=$? $(grep -m1 -E 'Duration' "$OUT/ncu_$b.txt")"
done
echo "total $(( $(date +%s) - t0 ))s"
grep -vE "^\s*$" "$OUT/ab.txt" | grep -v "rc=0"
