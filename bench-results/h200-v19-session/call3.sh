#!/usr/bin/env bash
# Thirteenth session, call 3 (carry ["dist"]; about 5 minutes): the inline
# plan (a batch of up to 16 sequences carries its host plan in the kernel's
# parameters; direct calls take it too, their units in the plan's order)
# checked (GPU tests, reliability, the four sanitizers on both plans), then
# two rounds beside the previous build (dist/old/pagedattn: e71bb20, pcopy)
# with digests.
#   prediction: one dependent memory trip fewer before a CTA's first loads
#   (the plan's, or a direct call's indptrs): rows of up to 16 sequences
#   0.5-1 us faster (seed00-08 5-10%, seed10/11/13/15 2-4%, scale singles
#   and prefix rows of few sequences 1-2%), rows of more sequences
#   unchanged; bits equal everywhere.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist; B=$D/pagedattn
t0=$(date +%s)
TESTS_TIMEOUT=150 REL_TIMEOUT=90 SANITIZERS="memcheck racecheck synccheck initcheck" SAN_TIMEOUT=45 \
  bash scripts/device-run.sh tests reliability sanitize-plans > "$OUT/checks.txt" 2>&1
echo "checks $(( $(date +%s) - t0 ))s"; sed -n '/^=== summary/,$p' "$OUT/checks.txt"
W=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/shapes.jsonl --workloads $D/prefix.jsonl)
AB_ROUNDS=2 AB_TIMEOUT=150 OUT=$OUT/ab bash scripts/device-ab.sh prev=$D/old/pagedattn new=$B -- "${W[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"
cd "$OUT" && tar czf json.tgz ab && rm -rf ab
grep -vE "^\s*$" ab.txt | grep -v "rc=0" | head -62
echo "total $(( $(date +%s) - t0 ))s"
