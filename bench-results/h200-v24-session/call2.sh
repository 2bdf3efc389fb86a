#!/usr/bin/env bash
# Eighteenth session, call 2 (carry ["dist", "dist-main"]; prepare2.sh).
# Part 1: the refitted prefers_m192 (SeqLengths: per-sequence padding, the
# key spread, the blocks per CTA) on both held-out sets, three rounds:
# 58d2020's CLI (no m192), this build, and m192 forced (data for later fits).
#   Prediction: holdout2's 8 picked calls 0.80-0.95 of 58d2020; holdout's
#   one picked (b1_q96) 0.92; every other row bitwise equal to 58d2020.
# Part 2: merge2 (dist/var/merge2.cubin: the last chunk's merge loads chunk
# c + 1's partial while folding chunk c, m128 family only) against this
# build on the cached-prefix rows, two rounds.
#   Prediction: the same bits; rows of 4 chunks 1-2 us faster, of 16 chunks
#   (prefix_q32_kv16384_b2, prefix_b1_q64_kv16384) 3-6 us faster.
# Part 3: unitcost with the automatic split on two decode-like rows.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files ab mg uc 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv,noheader
B=dist/pagedattn; V=dist/var
AB_ROUNDS=3 AB_TIMEOUT=150 OUT=$OUT/ab bash scripts/device-ab.sh main=dist-main/pagedattn new=$B "m192=$B@--tile=m192" \
  -- --workloads dist/holdout.jsonl --workloads dist/holdout2.jsonl > "$OUT/holdout.txt" 2>&1
grep -vE "^\s*$" "$OUT/holdout.txt" | grep -v "rc=0" | grep -v "^|"
echo "holdout $(( $(date +%s) - t0 ))s"
AB_ROUNDS=2 AB_TIMEOUT=150 OUT=$OUT/mg bash scripts/device-ab.sh new=$B "merge2=$B@--attention-cubin=$V/merge2.cubin" \
  -- --workloads dist/prefix.jsonl --workloads dist/shapes.jsonl --filter prefix \
  > "$OUT/merge2.txt" 2>&1
grep -vE "^\s*$" "$OUT/merge2.txt" | grep -v "rc=0" | grep -v "^|"
echo "merge2 $(( $(date +%s) - t0 ))s"
mkdir -p "$OUT/uc"
for w in prefix_q16_kv4096_b8 prefix_q32_kv16384_b2; do
  timeout 60 python3 scripts/unitcost.py $V/unitcost.cubin dist/decode.jsonl $w --kernel m128d --reps 10 --split 0 \
    --json "$OUT/uc/$w.json" > "$OUT/uc/$w.txt" 2>&1
  echo "uc $w rc=$?"; tail -14 "$OUT/uc/$w.txt"
done
echo "--- merge2 table"; sed -n '/^| workload/,$p' "$OUT/merge2.txt" | head -40
echo "--- holdout table"; sed -n '/^| workload/,$p' "$OUT/holdout.txt" | head -60
