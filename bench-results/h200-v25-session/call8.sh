#!/usr/bin/env bash
# Nineteenth session, call 8 (carry ["dist"], call 7's dist): the 128-row
# configurations forced on the decode rows, which the choice gives to m64
# (fewer than 16 queries a sequence). Call 7: their K/V stream is held by
# the bytes in flight, 128 KB an SM on m64 (two CTAs, two 32 KB stages of K
# and V each); m128d holds 192 KB (three 64 KB stages), m128 and m128dv 128
# and 160 KB.
#   Prediction: m128d 10-25% faster than m64 on decode_b64_q1_kv4096,
#   decode_b16_q1_kv16384_sequential, spec_b32_q4_kv8192 and the two long
#   single-sequence rows; m64 still best at 512 keys (tiny_b128_q1_kv512,
#   eighteenth session call 6: 50.4 against m128d's 59.8).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files ab 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
B=dist/pagedattn
AB_ROUNDS=2 AB_TIMEOUT=100 OUT=$OUT/ab bash scripts/device-ab.sh auto=$B m128d=$B@--tile=m128d m128=$B@--tile=m128 \
  m128dv=$B@--tile=m128dv -- --workloads dist/serving.jsonl --workloads dist/shapes.jsonl --filter decode_ --filter long_b1 \
  --filter spec_ --filter tiny_b128 --filter tiny_b300 > "$OUT/tiles.txt" 2>&1
sed -n '/^| workload/,$p' "$OUT/tiles.txt"
