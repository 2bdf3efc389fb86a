#!/usr/bin/env bash
# Twelfth session, call 6 (carry ["dist"]; about 3 minutes): two rounds of
# the candidate (qpre on m128d) beside kvpre and kvq
# (make-kvpre-variants.py).
#   kvpre: call 3 put the consumers' wait for a unit's first K block at
#   1460-2970 cycles per unit on the m64 rows (15-31% of a unit) and the
#   producer's ring waits at 830-1120 per block: the first block's rows,
#   read from DRAM, load only once a ring stage frees. Prefetched into L2
#   while the producer waits for the stage, they should land ~1000-2000
#   cycles earlier. Prediction: seed12/18, tiny_* 5-15% faster, m128 rows of
#   short units (seed10/13, batch64x512) 2-5%, long rows unchanged (a first
#   block per 8-32 blocks), bits equal.
#   kvq: kvpre, and the Q prefetch on every kernel but only when the slot is
#   not free yet. Prediction: as kvpre, plus m64 rows (later-unit Q wait
#   450-1320 cycles) 1-3%; m128 unchanged (slot free when asked).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist; B=$D/pagedattn
t0=$(date +%s)
W=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/shapes.jsonl --workloads $D/prefix.jsonl)
AB_ROUNDS=2 AB_TIMEOUT=150 OUT=$OUT/ab bash scripts/device-ab.sh new=$B kvpre=$B@--attention-cubin=$D/var/kvpre.cubin \
  kvq=$B@--attention-cubin=$D/var/kvq.cubin -- "${W[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"
cd "$OUT" && mkdir -p j && cp ab/*.json j/ 2>/dev/null
tar czf logs.tgz --exclude=logs.tgz --exclude=j * && tar czf json.tgz j && rm -rf ab j *.log
grep -vE "^\s*$" ab.txt | grep -v "rc=0" | head -62
echo "total $(( $(date +%s) - t0 ))s"
