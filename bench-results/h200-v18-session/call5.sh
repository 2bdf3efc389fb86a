#!/usr/bin/env bash
# Twelfth session, call 5 (carry ["dist"]; about 6 minutes): the candidate
# build (qpre on m128d only: call 4 measured it 1-4% slower on the two-slot
# kernels, where the slot hides the load) checked, then two rounds beside
# the previous build and eqpre (earlyq + qpre).
#   prediction: new against prev: m128d rows of several units per CTA 1-2%
#   faster (seed15, scale_single_2048, seq2048_*, prefix_q*_kv1024_*), the
#   m128 and m64 rows unchanged; bits equal. eqpre: earlyq gave the producer
#   the last P V and the epilogue to load the next Q but was equal (call 2);
#   with that Q in L2, the wait should go, unless the held V stage delays
#   the next unit's first block by as much.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist; B=$D/pagedattn
t0=$(date +%s)
TESTS_TIMEOUT=150 REL_TIMEOUT=90 SANITIZERS="memcheck racecheck synccheck initcheck" SAN_TIMEOUT=45 \
  bash scripts/device-run.sh tests reliability sanitize-plans > "$OUT/checks.txt" 2>&1
echo "checks (new build) $(( $(date +%s) - t0 ))s"; sed -n '/^=== summary/,$p' "$OUT/checks.txt"
W=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/shapes.jsonl --workloads $D/prefix.jsonl)
AB_ROUNDS=2 AB_TIMEOUT=150 OUT=$OUT/ab bash scripts/device-ab.sh prev=$B@--attention-cubin=$D/var/prev.cubin new=$B \
  eqpre=$B@--attention-cubin=$D/var/eqpre.cubin -- "${W[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"
cd "$OUT" && mkdir -p j && cp ab/*.json j/ 2>/dev/null
tar czf logs.tgz --exclude=logs.tgz --exclude=j --exclude=checks.txt * && tar czf json.tgz j && rm -rf ab j *.log
grep -vE "^\s*$" ab.txt | grep -v "rc=0" | head -62
echo "total $(( $(date +%s) - t0 ))s"
