#!/usr/bin/env bash
# Thirteenth session, call 5 (carry ["dist", ".peers", ".whl"]; about 6
# minutes): m128d with separate K and V ring depths and two Q slots.
#   k3v2: K ring 3 deep, V ring 2 deep, two Q slots (the shared memory of
#         the third V stage buys the second slot; pcopy then applies to
#         m128d too, qpre does not).
#   k2v3: K ring 2 deep, V ring 3 deep, two Q slots (a diagnostic: which
#         ring's depth did m128d's third stage buy?).
#   prediction: k3v2 takes m128d's later-unit Q wait (2000-2300 cycles per
#   unit, call 1) off, as the two slots do on m128 (132 cycles): the m128d
#   rows of several units per CTA 2-7% faster (scale_batch16x2048,
#   seed15, prefix_*, seq2048_*, scale_single_1024-4096), seed11 ~3%; the
#   long rows (8192-32768, one or two units per CTA) within 2% either way
#   if the third stage mattered for K; slower if for V, and then k2v3 keeps
#   them. Direct rows (seed07/08) unchanged or faster. Bits equal.
# Then FlashInfer-Bench at git 40e6ca78 on v15.1's wheel (the 0.1.2 run of
# call 4 put ours 4-15 us higher than the eleventh session's), and the
# checks of k3v2 (GPU tests, reliability, four sanitizers on both plans).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist; B=$D/pagedattn
t0=$(date +%s)
W=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/shapes.jsonl --workloads $D/prefix.jsonl)
AB_ROUNDS=2 AB_TIMEOUT=120 OUT=$OUT/ab bash scripts/device-ab.sh shipped=$B \
  k3v2=$B@--attention-cubin=$D/var/k3v2.cubin k2v3=$B@--attention-cubin=$D/var/k2v3.cubin \
  -- "${W[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"
OUT=$OUT/py timeout 90 bash scripts/device-python.sh suite > "$OUT/py.txt" 2>&1
echo "suite rc=$? $(( $(date +%s) - t0 ))s"; grep -A3 "=== summary" "$OUT/py.txt" | head -4
PAGEDATTN_ATTENTION_CUBIN=$D/var/k3v2.cubin TESTS_TIMEOUT=130 REL_TIMEOUT=60 \
  SANITIZERS="memcheck racecheck synccheck initcheck" SAN_CUBIN=$D/var/k3v2.cubin SAN_TIMEOUT=40 \
  timeout 230 bash scripts/device-run.sh tests reliability sanitize-plans > "$OUT/checks.txt" 2>&1
echo "checks (k3v2) $(( $(date +%s) - t0 ))s"; sed -n '/^=== summary/,$p' "$OUT/checks.txt"
cd "$OUT" && tar czf json.tgz ab py/suite 2>/dev/null; rm -rf ab
grep -vE "^\s*$" ab.txt | grep -v "rc=0" | head -62
echo "total $(( $(date +%s) - t0 ))s"
