#!/usr/bin/env bash
# Device call 4 (seventh session): the vote's cost. Diagnostic builds:
#   barcost   novote plus the warpgroup vote, its result ignored
#   failany   spec2 that sets the page-range error bit whenever a vote
#             fails (the bench then reports the workload as an error: which
#             rows fail at all)
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
t0=$(date +%s)
W=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/prefix.jsonl
   --filter seed07 --filter seed10 --filter seed11 --filter seed13 --filter seed15 --filter scale_single_1024
   --filter prefix_q128_kv4096 --filter prefix_q256_kv4096 --filter prefix_q512_kv16384 --filter scale_single_8192
   --filter scale_single_16384 --filter seed12 --filter seed18)
cfg() { echo "$1=$D/pagedattn@--attention-cubin=$D/var/$1.cubin"; }
AB_ROUNDS=2 AB_TIMEOUT=60 OUT=$OUT/ab bash scripts/device-ab.sh $(cfg spec2) $(cfg novote) $(cfg barcost) -- "${W[@]}" > "$OUT/ab.txt" 2>&1
timeout 60 $D/pagedattn bench --attention-cubin $D/var/failany.cubin "${W[@]}" > "$OUT/failany.txt" 2>&1
timeout 60 $D/pagedattn bench --attention-cubin $D/var/failany.cubin --workloads $D/seed.jsonl --workloads $D/scale.jsonl > "$OUT/failany-all.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"
cd "$OUT" && mkdir -p j && cp ab/*.json j/ 2>/dev/null
tar czf logs.tgz --exclude=logs.tgz --exclude=j * && tar czf json.tgz j && rm -rf ab j *.log
cat ab.txt | grep -vE "^\s*$" | head -40
grep -iE "error|out of range|ok|fail" failany.txt | head -30
grep -iE "workloads:" failany-all.txt; grep -iE "error|range" failany-all.txt | cut -c1-100 | head -40
echo "total $(( $(date +%s) - t0 ))s"
