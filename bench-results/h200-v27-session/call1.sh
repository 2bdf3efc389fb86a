#!/usr/bin/env bash
# Call 1: the spread merge (every chunk of a one-wave call helps merge its
# tile, claiming row quarters through the tile's semaphore word) against
# the tree's last-chunk merge (base.cubin = HEAD's kernels, same host).
# (0) the new GPU test spread_merge_matches_reference; (1) correctness: `check` through m64, m128, m128d and m128dv with forced
# splits over the split set and generated batches, both plans;
# (2) base vs spread on serving, prefix, shapes and seed, two rounds;
# (3) the long decode rows with m64 and finer chunks forced. Carry ["dist"].
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files ab ab2 *.log 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
B=dist/pagedattn
timeout 120 dist/gpu_tests --ignored --test-threads 1 spread_merge > "$OUT/test_spread.log" 2>&1
echo "spread test rc=$? $(grep -E 'spread merge:|test result|panicked' "$OUT/test_spread.log" | head -3)"
for tile in m64 m128 m128d m128dv; do
  for plan in host device; do
    for split in 0 3; do
      timeout 60 $B check --backend cuda --cpu-ref-max-pairs 0 --tile $tile --plan $plan $( [ $split = 0 ] || echo --split $split ) \
        --workloads dist/split.jsonl --generated 6 > "$OUT/check_${tile}_${plan}_$split.log" 2>&1
      echo "check $tile $plan split $split rc=$? $(grep -E '^[0-9]+ workloads?:' "$OUT/check_${tile}_${plan}_$split.log")"
    done
  done
done
BASE=--attention-cubin=dist/var/base.cubin
AB_ROUNDS=2 AB_TIMEOUT=150 OUT=$OUT/ab bash scripts/device-ab.sh base=$B@$BASE spread=$B \
  -- --workloads dist/serving.jsonl --workloads dist/prefix.jsonl --workloads dist/shapes.jsonl --workloads dist/seed.jsonl > "$OUT/ab.txt" 2>&1
AB_ROUNDS=1 AB_TIMEOUT=100 OUT=$OUT/ab2 bash scripts/device-ab.sh spread=$B base=$B@$BASE \
  m64s16=$B@--tile=m64,--split=16 m64s8=$B@--tile=m64,--split=8 m64s32=$B@--tile=m64,--split=32 \
  dvs4=$B@--tile=m128dv,--split=4 base_m64s8=$B@$BASE,--tile=m64,--split=8 \
  -- --workloads dist/serving.jsonl --filter long_b1 --filter spec --filter decode_b16 > "$OUT/ab2.txt" 2>&1
mkdir -p "$OUT/j" && cp "$OUT"/ab/*.json "$OUT"/ab2/*.json "$OUT/j/" 2>/dev/null; (cd "$OUT" && tar czf json.tgz j && rm -rf j)
grep -E 'rc=' "$OUT/ab.txt" "$OUT/ab2.txt"; sed -n '/^| workload/,$p' "$OUT/ab.txt"; sed -n '/^| workload/,$p' "$OUT/ab2.txt"
