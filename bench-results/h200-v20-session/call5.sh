#!/usr/bin/env bash
# Fourteenth session, call 5 (carry ["dist"]; the shipped build of call 2):
# 1. its GPU tests and reliability (the tile choice changed on the host
#    after call 1's checks);
# 2. forced split sizes on the rows that now pick m128dv, against auto:
#    with two Q slots a unit's fixed cost is lower than m128d's, for which
#    the split estimate's constants were set; a forced size well ahead of
#    auto on some row means the estimate wants retuning for m128dv.
#    Prediction: auto within 2% of the best forced size on most rows.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist; B=$D/pagedattn
t0=$(date +%s)
TESTS_TIMEOUT=150 REL_TIMEOUT=90 bash scripts/device-run.sh tests reliability > "$OUT/checks.txt" 2>&1
echo "checks $(( $(date +%s) - t0 ))s"; sed -n '/^=== summary/,$p' "$OUT/checks.txt"
F=(--filter seed10 --filter seed11 --filter seed13 --filter seed15 --filter seed19 --filter scale_single_1024
   --filter scale_single_2048 --filter scale_single_4096 --filter batch16x2048 --filter seq2048_pages_seq
   --filter prefix_q64_kv1024 --filter prefix_q128_kv1024 --filter prefix_q256_kv1024 --filter prefix_b16_q256
   --filter prefix_mixed_b32)
W=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/shapes.jsonl --workloads $D/prefix.jsonl)
AB_ROUNDS=1 AB_TIMEOUT=60 OUT=$OUT/ab bash scripts/device-ab.sh auto=$B s4=$B@--split=4 s8=$B@--split=8 \
  s16=$B@--split=16 never=$B@--split=never -- "${W[@]}" "${F[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"
(cd "$OUT" && mkdir -p j && cp ab/*.json j/ && tar czf json.tgz j && rm -rf ab j)
grep -vE "^\s*$" "$OUT/ab.txt" | grep -v "rc=0" | head -24
