#!/usr/bin/env bash
# Prepared in the twelfth session, not run (inputs from prepare-next.sh;
# carry ["dist"]; about 6 minutes): tk2 (tk2-variant.patch). The producer's
# thread 0 claims each ticket at the start of the unit two before the one
# it is for (a unit ahead of today's claim at the unit's last block), so
# the atomic's round trip is long over when the decode needs it; every CTA
# that takes the counter takes it twice past the units, and issue_ticket's
# modulus counts that (ticket-sim.py checks the arithmetic: every unit run
# once, the counter back to 0).
#   prediction: if the ticket's round trip is what the m64 producer's
#   decode (2800-4400 cycles per unit, call 1) waits on (next-call1.sh
#   says), the m64 host-plan rows of one-block units (tiny_*, seed18,
#   seed12, empty_and_short_b40, q_gt_kv_b8) 5-15% faster; if not, equal.
#   Risk: a unit claimed a unit earlier leaves the CTA that takes it less
#   free to balance (claiming two 64-key blocks earlier made seed09 8%
#   slower in v7.6): seed09, seed12 and seed14 may lose.
#   Bits equal everywhere (a unit's arithmetic does not depend on its CTA).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist; B=$D/pagedattn; V=$D/var/tk2.cubin
t0=$(date +%s)
PAGEDATTN_ATTENTION_CUBIN=$V TESTS_TIMEOUT=150 REL_TIMEOUT=90 SANITIZERS="memcheck racecheck synccheck" \
  SAN_CUBIN=$V SAN_TIMEOUT=45 bash scripts/device-run.sh tests reliability sanitize-plans > "$OUT/checks.txt" 2>&1
echo "checks (tk2) $(( $(date +%s) - t0 ))s"; sed -n '/^=== summary/,$p' "$OUT/checks.txt"
W=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/shapes.jsonl --workloads $D/prefix.jsonl)
AB_ROUNDS=2 AB_TIMEOUT=150 OUT=$OUT/ab bash scripts/device-ab.sh shipped=$B tk2=$B@--attention-cubin=$V -- "${W[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"
cd "$OUT" && mkdir -p j && cp ab/*.json j/ 2>/dev/null
tar czf logs.tgz --exclude=logs.tgz --exclude=j --exclude=checks.txt * && tar czf json.tgz j && rm -rf ab j *.log
grep -vE "^\s*$" ab.txt | grep -v "rc=0" | head -62
echo "total $(( $(date +%s) - t0 ))s"
