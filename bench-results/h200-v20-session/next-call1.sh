#!/usr/bin/env bash
# Prepared in the fourteenth session, not run (inputs from prepare-next.sh;
# carry ["dist"]; about 4 minutes): seed09, the one row more than 3% slower
# than the issues' baseline 7c9e025 (14.4 against 13.8 us; m64 host plan,
# 19 sequences of 1-122 queries), with its neighbours in shape.
# 1. Four rounds, 7c9e025 against the shipped build, on seed05, seed09,
#    seed12 and seed14, order alternating (scripts/device-ab.sh).
# 2. One ncu profile of seed09 per build (speed of light, warp states,
#    launch stats): what 7c9e025 does with fewer cycles (its grid is one
#    CTA per tile and no plan; ours persistent with tickets).
# Prediction: seed09 1.03-1.05 of 7c9e025, the others faster on ours; ncu
# shows the difference in the CTAs' start (plan copy, first Q) or in the
# ticket waits, which the unitcost account then splits.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
for d in /usr/local/cuda/bin /opt/nvidia/nsight-compute/*/; do [ -d "$d" ] && PATH="$PATH:$d"; done
F=(--filter seed05 --filter seed09 --filter seed12 --filter seed14)
AB_ROUNDS=4 AB_TIMEOUT=60 OUT=$OUT/ab bash scripts/device-ab.sh base=$D/base/pagedattn shipped=$D/pagedattn \
  -- --workloads $D/seed.jsonl "${F[@]}" > "$OUT/ab.txt" 2>&1
grep -vE "^\s*$" "$OUT/ab.txt" | grep -v "rc=0"
for b in base shipped; do
  bin=$D/pagedattn; [ $b = base ] && bin=$D/base/pagedattn
  timeout 120 ncu --clock-control none --kernel-name regex:paged_prefill --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats \
    "$bin" bench --backend cuda --no-check --reps 1 --warmup 0 --cuda-timing checked --workloads $D/seed.jsonl \
    --filter seed09 > "$OUT/ncu_$b.txt" 2>&1
  echo "$b rc=$? $(grep -m1 -E 'Duration' "$OUT/ncu_$b.txt")"
done
