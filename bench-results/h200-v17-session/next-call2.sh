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
# Correctness first: every GPU test and reliability with the variant,
# memcheck, racecheck and synccheck through both plans; then two rounds.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist; B=$D/pagedattn; V=$D/var/earlyq.cubin
for d in /usr/local/cuda/bin /usr/local/cuda/compute-sanitizer; do [ -d "$d" ] && PATH="$PATH:$d"; done
t0=$(date +%s)
PAGEDATTN_ATTENTION_CUBIN=$V timeout 150 $D/gpu_tests --include-ignored --test-threads=1 --nocapture > "$OUT/gpu_tests.log" 2>&1
echo "gpu_tests (earlyq) rc=$? $(grep -E '^test result' $OUT/gpu_tests.log) $(( $(date +%s) - t0 ))s"
grep -E "panicked|FAILED" "$OUT/gpu_tests.log" | head -4
PAGEDATTN_ATTENTION_CUBIN=$V timeout 90 $D/gpu_reliability --include-ignored --test-threads=1 --nocapture > "$OUT/gpu_reliability.log" 2>&1
echo "gpu_reliability (earlyq) rc=$? $(grep -E '^test result' $OUT/gpu_reliability.log) $(( $(date +%s) - t0 ))s"
grep -E "panicked|FAILED" "$OUT/gpu_reliability.log" | head -4
for plan in device host; do
  for tool in memcheck racecheck synccheck; do
    timeout 45 compute-sanitizer --tool $tool --error-exitcode 9 $B check --backend cuda --cpu-ref-max-pairs 0 \
      --attention-cubin $V --plan $plan --workloads $D/split.jsonl --generated 6 > "$OUT/san_${plan}_$tool.log" 2>&1
    echo "$tool (earlyq, $plan plan) rc=$? $(grep -E 'SUMMARY' $OUT/san_${plan}_$tool.log | tail -1) | $(grep -E 'workloads:' $OUT/san_${plan}_$tool.log | tail -1) | $(( $(date +%s) - t0 ))s"
  done
done
W=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/shapes.jsonl --workloads $D/prefix.jsonl)
AB_ROUNDS=2 AB_TIMEOUT=150 OUT=$OUT/ab bash scripts/device-ab.sh shipped=$B earlyq=$B@--attention-cubin=$V -- "${W[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"
cd "$OUT" && mkdir -p j && cp ab/*.json j/ 2>/dev/null
tar czf logs.tgz --exclude=logs.tgz --exclude=j * && tar czf json.tgz j && rm -rf ab j *.log
grep -vE "^\s*$" ab.txt | grep -v "rc=0" | head -62
echo "total $(( $(date +%s) - t0 ))s"
