#!/usr/bin/env bash
# Thirteenth session, call 1 (carry ["dist"]; inputs from
# h200-v18-session/prepare-next.sh, then dist/pagedattn rebuilt with the
# new timing modes):
#  1. the twelfth session's prepared unitcost account (next-call1.sh):
#     the producer's ticket wait (24) and decode (25), the plan ready from
#     the CTA's entry (26);
#  2. the shipped build on every set under three L2 states, one round:
#     cold (SPEC.md), cold data with warm code (`--cuda-timing
#     graph-cold-data`: the same call on other buffers run after the flush)
#     and warm (no flush).
#     question: how much of a row's time is fetching the kernel's code
#     cold (cold minus cold-data), and how much is its data's cold trips
#     (cold-data minus warm)? The tiny rows' chain (seed00: 9.0 us against
#     a 3.2 us launch) is either; the answer says which to shorten.
#  3. tk2 and pcopy (the twelfth session's prepared variants) beside the
#     shipped build, two rounds, checked against the reference, with
#     digests (their tests and sanitizers only if one is kept).
#     predictions: next-call2.sh and next-call3.sh of h200-v18-session.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist; B=$D/pagedattn
t0=$(date +%s)
OUT=$OUT/uc timeout 150 bash bench-results/h200-v18-session/next-call1.sh > "$OUT/uc.txt" 2>&1
echo "unitcost $(( $(date +%s) - t0 ))s"
W=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/shapes.jsonl --workloads $D/prefix.jsonl)
AB_ROUNDS=1 AB_TIMEOUT=150 OUT=$OUT/modes bash scripts/device-ab.sh cold=$B \
  colddata=$B@--cuda-timing=graph-cold-data,--no-check warm=$B@--cuda-timing=graph-warm,--no-check \
  -- "${W[@]}" > "$OUT/modes.txt" 2>&1
echo "modes $(( $(date +%s) - t0 ))s"
AB_ROUNDS=2 AB_TIMEOUT=150 OUT=$OUT/ab bash scripts/device-ab.sh shipped=$B \
  tk2=$B@--attention-cubin=$D/var/tk2.cubin pcopy=$B@--attention-cubin=$D/var/pcopy.cubin \
  -- "${W[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"
cd "$OUT" && tar czf json.tgz modes ab && rm -rf modes ab
grep -vE "^\s*$" modes.txt | head -62
grep -vE "^\s*$" ab.txt | grep -v "rc=0" | head -62
echo "total $(( $(date +%s) - t0 ))s"
