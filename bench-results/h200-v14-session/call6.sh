#!/usr/bin/env bash
# Device call 6 (eighth session): the L2 prefetch as plain per-line
# prefetches (l2pfline-variant.patch: prefetch.global.L2, 4 per K/V row pair
# by one lane per row) instead of call 5's bulk prefetches, against the
# shipped build, two rounds, on cached-prefix, long and short rows.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
t0=$(date +%s)
W=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/prefix.jsonl
   --filter prefix_q128_kv4096 --filter prefix_q512_kv16384 --filter prefix_q1000 --filter prefix_q64_kv1024 --filter prefix_mixed
   --filter seed07 --filter seed11 --filter seed18 --filter seed00 --filter scale_single_4096 --filter scale_single_8192)
AB_ROUNDS=2 AB_TIMEOUT=60 OUT=$OUT/ab bash scripts/device-ab.sh shipped=$D/pagedattn l2pfline=$D/pagedattn@--attention-cubin=$D/var/l2pfline.cubin -- "${W[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"
cd "$OUT" && mkdir -p j && cp ab/*.json j/ 2>/dev/null
tar czf logs.tgz --exclude=logs.tgz --exclude=j * && tar czf json.tgz j && rm -rf ab j *.log
grep -vE "^\s*$" ab.txt | head -40
echo "total $(( $(date +%s) - t0 ))s"
