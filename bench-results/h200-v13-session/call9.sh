#!/usr/bin/env bash
# Prepared in the seventh session, run in the eighth (inputs built by
# prepare-call9.sh); the ncu source account of the shipped build last.
# Device call 9: variants of the softmax's fast path (2a5c4c9) against the
# shipped build and novote:
#   late       the vote's outcome committed by selects and a failed vote
#              handled after P is converted (no branch between the vote
#              and the loop's end on the common path)
#   lim16      the fast path's limit 2^16 instead of 2^8 (fewer failed
#              votes: 1-3.7% of warpgroup-blocks on seed07-11 with 2^8;
#              probabilities up to 2^16 before the reference moves)
#   latelim16  both
# The late-reference, tile-config and huge-logit tests on each first; then
# two rounds on the long, prefix and single-sequence rows.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
t0=$(date +%s)
for v in late lim16 latelim16; do
  PAGEDATTN_ATTENTION_CUBIN=$D/var/$v.cubin timeout 60 $D/gpu_tests --include-ignored --test-threads=1 --nocapture late_reference both_tile > "$OUT/gpu_tests_$v.log" 2>&1
  echo "gpu_tests late_reference both_tile ($v) rc=$? $(grep -E '^test result' $OUT/gpu_tests_$v.log) $(( $(date +%s) - t0 ))s"
  PAGEDATTN_ATTENTION_CUBIN=$D/var/$v.cubin timeout 30 $D/gpu_reliability --include-ignored --test-threads=1 --nocapture huge_logits nan_inf > "$OUT/gpu_reliability_$v.log" 2>&1
  echo "gpu_reliability huge_logits nan_inf ($v) rc=$? $(grep -E '^test result' $OUT/gpu_reliability_$v.log) $(( $(date +%s) - t0 ))s"
done
W=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/prefix.jsonl
   --filter seed07 --filter seed10 --filter seed11 --filter seed13 --filter seed15 --filter seed19 --filter scale_single_2048
   --filter scale_single_4096 --filter scale_single_8192 --filter scale_single_16384 --filter scale_batch16x2048
   --filter prefix_q128_kv4096 --filter prefix_q512_kv16384 --filter prefix_mixed)
cfg() { echo "$1=$D/pagedattn@--attention-cubin=$D/var/$1.cubin"; }
AB_ROUNDS=2 AB_TIMEOUT=45 OUT=$OUT/ab bash scripts/device-ab.sh shipped=$D/pagedattn $(cfg late) $(cfg lim16) $(cfg latelim16) $(cfg novote) -- "${W[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"
mkdir -p "$OUT/ncu" && OUT=$OUT/ncu timeout 200 bash scripts/device-run.sh ncu-source > "$OUT/ncu.txt" 2>&1
echo "ncu-source rc=$? $(( $(date +%s) - t0 ))s"
rm -f "$OUT"/ncu/*.ncu-rep
cd "$OUT" && mkdir -p j && cp ab/*.json j/ 2>/dev/null
tar czf logs.tgz --exclude=logs.tgz --exclude=j * && tar czf json.tgz j && rm -rf ab j *.log
cat ab.txt | grep -vE "^\s*$" | head -40
echo "total $(( $(date +%s) - t0 ))s"
