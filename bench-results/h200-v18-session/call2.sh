#!/usr/bin/env bash
# Prepared in the eleventh session, not run (inputs from prepare-next.sh;
# carry ["dist"]; about 5 minutes): earlyq (earlyq-variant.patch). With one Q
# slot (m128d), the slot is released as soon as the unit's last S is final,
# and the output is staged in the unit's last V stage (held until the staged
# rows are copied out; an mbarrier, pv_done, tells each warpgroup that the
# other's last P V has read it). The producer then loads the next unit's Q
# under this unit's last P V and epilogue instead of after them. The 32
# bytes of the new barrier come from the plan's per-warp reductions (red[16]
# -> one per warp; m128d's shared memory was full to the byte).
#   prediction: the m128d rows of several units per CTA faster by the part
#   of a unit's start that waits for its Q (scale_batch16x2048, the prefix
#   rows, seq2048_*, scale_single_1024-4096, seed11, seed15): 1-5%;
#   scale_single_16384/32768 (long units) and the m128 / m64 rows unchanged
#   (same code paths; m128 and m64 have two Q slots); bits equal everywhere
#   (the same arithmetic). If it pays, check next-call1's unitcost account
#   of the Q wait against the gain.
# Correctness first (scripts/device-run.sh tests reliability sanitize-plans):
# every GPU test and reliability with the variant, memcheck, racecheck and
# synccheck through both plans; then two rounds.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist; B=$D/pagedattn; V=$D/var/earlyq.cubin
t0=$(date +%s)
PAGEDATTN_ATTENTION_CUBIN=$V TESTS_TIMEOUT=150 REL_TIMEOUT=90 SANITIZERS="memcheck racecheck synccheck" \
  SAN_CUBIN=$V SAN_TIMEOUT=45 bash scripts/device-run.sh tests reliability sanitize-plans > "$OUT/checks.txt" 2>&1
echo "checks (earlyq) $(( $(date +%s) - t0 ))s"; sed -n '/^=== summary/,$p' "$OUT/checks.txt"
W=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/shapes.jsonl --workloads $D/prefix.jsonl)
AB_ROUNDS=2 AB_TIMEOUT=150 OUT=$OUT/ab bash scripts/device-ab.sh shipped=$B earlyq=$B@--attention-cubin=$V -- "${W[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"
cd "$OUT" && mkdir -p j && cp ab/*.json j/ 2>/dev/null
tar czf logs.tgz --exclude=logs.tgz --exclude=j --exclude=checks.txt * && tar czf json.tgz j && rm -rf ab j *.log
grep -vE "^\s*$" ab.txt | grep -v "rc=0" | head -62
echo "total $(( $(date +%s) - t0 ))s"
