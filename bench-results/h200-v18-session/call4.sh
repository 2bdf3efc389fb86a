#!/usr/bin/env bash
# Twelfth session, call 4 (carry ["dist"]; about 4 minutes): two L2
# prefetches from call 3's account (make-prefetch-variants.py), two rounds
# beside the shipped build.
#   qpre: the next unit's Q rows into L2 before the producer waits for its
#   Q slot. Call 3: on m128d (one slot) each later unit waits 3000-3600
#   cycles for its Q (Q is read once, so from DRAM). Prediction: m128d rows
#   of several units per CTA 2-7% faster (scale_batch16x2048 most, seed11 /
#   seed15 ~3%, scale_single_4096/8192 ~2%); m64 tiny_b500 (later-unit Q
#   wait 1318) a little; m128 (131) unchanged.
#   idpre: the page-id array into L2 at entry by producer warps 1-3. Call 3:
#   a CTA's first K lands 11500-18000 cycles after its entry, behind three
#   dependent DRAM trips (indptrs, page ids, K). Prediction: the page-id
#   trip from L2 takes ~1000 cycles off every CTA's first unit: seed00-06
#   3-8% faster, seed07-19 1-3%, long rows unchanged.
# Bits: a prefetch changes no value: every row bitwise equal.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist; B=$D/pagedattn
t0=$(date +%s)
W=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/shapes.jsonl --workloads $D/prefix.jsonl)
AB_ROUNDS=2 AB_TIMEOUT=150 OUT=$OUT/ab bash scripts/device-ab.sh shipped=$B qpre=$B@--attention-cubin=$D/var/qpre.cubin \
  idpre=$B@--attention-cubin=$D/var/idpre.cubin both=$B@--attention-cubin=$D/var/both.cubin -- "${W[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"
cd "$OUT" && mkdir -p j && cp ab/*.json j/ 2>/dev/null
tar czf logs.tgz --exclude=logs.tgz --exclude=j * && tar czf json.tgz j && rm -rf ab j *.log
grep -vE "^\s*$" ab.txt | grep -v "rc=0" | head -64
echo "total $(( $(date +%s) - t0 ))s"
