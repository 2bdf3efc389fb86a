#!/usr/bin/env bash
# What a chunk costs with bf16m, by diagnostic (outputs wrong: --no-check):
#   nss  (scripts/variant-src.py nosplitsync on the shipped source): chunks
#        write their output like whole tiles: no partial write, count, merge;
#   bnm  (bf16m with the merge removed): partial write and count, no merge.
# Prediction: if nss with chunks is not faster than unsplit on seed11/15 and
# scale_single_2048, the split itself (each unit's ~2-3 us beyond its blocks)
# holds those rows, not the synchronisation; the gap bf16m - bnm is the merge,
# bnm - nss the partial write and count.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist; B=$D/pagedattn
t0=$(date +%s)
W=(--no-check --workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/shapes.jsonl --workloads $D/prefix.jsonl
   --filter seed07 --filter seed11 --filter seed13 --filter seed15 --filter scale_single_2048
   --filter prefix_b4_q128_kv4096 --filter prefix_b1_q64_kv16384 --filter prefix_q128_kv16384_b1
   --filter prefix_q32_kv16384_b2 --filter prefix_q64_kv4096_b4)
cfgs=(never=$B@--split=never auto=$B)
for s in 3 4 8; do
  cfgs+=(s$s=$B@--split=$s b$s=$B@--attention-cubin=$D/var/bf16m.cubin,--split=$s
         bnm$s=$B@--attention-cubin=$D/var/bnm.cubin,--split=$s nss$s=$B@--attention-cubin=$D/var/nss.cubin,--split=$s)
done
AB_ROUNDS=1 AB_TIMEOUT=60 OUT=$OUT/ab bash scripts/device-ab.sh "${cfgs[@]}" -- "${W[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"
cd "$OUT" && mkdir -p j && cp ab/*.json j/ 2>/dev/null && tar czf json.tgz j && rm -rf ab j
grep -vE "^\s*$" ab.txt | grep -v "rc=0" | head -40
echo "total $(( $(date +%s) - t0 ))s"
