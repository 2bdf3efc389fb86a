#!/usr/bin/env bash
# Device call 3 (seventh session): why spec/spec2 slow the rows of short
# tiles and chunks (seed07/08/10/11, scale_single_1024, prefix_q128/256)
# while the long rows gain. Diagnostic builds (timing only):
#   novote    spec2 with every block taken at the reference (no vote, no
#             fallback code)
#   novotek   novote with K released before the softmax, as in base
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
t0=$(date +%s)
W=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/prefix.jsonl
   --filter seed07 --filter seed10 --filter seed11 --filter seed13 --filter seed15 --filter scale_single_1024
   --filter prefix_q128_kv4096 --filter prefix_q256_kv4096 --filter prefix_q512_kv16384 --filter scale_single_8192
   --filter scale_single_16384 --filter seed12 --filter seed18)
cfg() { echo "$1=$D/pagedattn@--attention-cubin=$D/var/$1.cubin"; }
AB_ROUNDS=3 AB_TIMEOUT=60 OUT=$OUT/ab bash scripts/device-ab.sh $(cfg base) $(cfg spec2) $(cfg novote) $(cfg novotek) -- "${W[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"
cd "$OUT" && mkdir -p j && cp ab/*.json j/ 2>/dev/null
tar czf logs.tgz --exclude=logs.tgz --exclude=j * && tar czf json.tgz j && rm -rf ab j *.log
cat ab.txt | grep -vE "^\s*$" | head -80
echo "total $(( $(date +%s) - t0 ))s"
