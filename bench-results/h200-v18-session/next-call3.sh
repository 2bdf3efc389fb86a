#!/usr/bin/env bash
# Prepared in the twelfth session, not run (inputs from prepare-next.sh;
# carry ["dist"]; about 6 minutes): pcopy (pcopy-variant.patch). On the
# two-slot kernels (m128, m64; planned calls) the consumers stage a unit's
# output in its Q slot and leave; the producer, which waits for that slot a
# unit later to refill it, copies the staged rows to global memory first
# (and, at its end, the other slot's last unit). Split chunks still copy
# their own. No new barrier id, no shared memory; m128d and the direct
# kernels are unchanged (their SASS is the shipped one's).
#   why: call 3 (unitcost) put the consumers' copies at 780-1740 cycles
#   per unit (seed10 814, seed13 1260, batch64x512 1742; m64 806-991), with
#   their second barrier, while the two-slot producer waits for its slot.
#   prediction: the m128 rows of short units 3-10% faster (batch64x512,
#   b16x512_pages_repeated, seed13, seed10, seed19), m64 rows between 5%
#   faster and 5% slower (their producer may be what they wait on: kvpre was
#   equal), m128d and direct rows unchanged; bits equal everywhere.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist; B=$D/pagedattn; V=$D/var/pcopy.cubin
t0=$(date +%s)
PAGEDATTN_ATTENTION_CUBIN=$V TESTS_TIMEOUT=150 REL_TIMEOUT=90 SANITIZERS="memcheck racecheck synccheck initcheck" \
  SAN_CUBIN=$V SAN_TIMEOUT=45 bash scripts/device-run.sh tests reliability sanitize-plans > "$OUT/checks.txt" 2>&1
echo "checks (pcopy) $(( $(date +%s) - t0 ))s"; sed -n '/^=== summary/,$p' "$OUT/checks.txt"
W=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/shapes.jsonl --workloads $D/prefix.jsonl)
AB_ROUNDS=2 AB_TIMEOUT=150 OUT=$OUT/ab bash scripts/device-ab.sh shipped=$B pcopy=$B@--attention-cubin=$V -- "${W[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"
cd "$OUT" && mkdir -p j && cp ab/*.json j/ 2>/dev/null
tar czf logs.tgz --exclude=logs.tgz --exclude=j --exclude=checks.txt * && tar czf json.tgz j && rm -rf ab j *.log
grep -vE "^\s*$" ab.txt | grep -v "rc=0" | head -62
echo "total $(( $(date +%s) - t0 ))s"
