#!/usr/bin/env bash
# Prepared in the ninth session (as h200-v15-session/next-call1.sh), run as the tenth session's call 1 (build its inputs with
# prepare-next.sh; carry ["dist"]; about 6 minutes). The chained units
# (chained-variant.patch) against the shipped build.
#   prediction: each unit boundary of the planned m128 / m64 kernels loses
#   its unoverlapped first softmax and lone last P V (about 0.5-1 us of the
#   2-3 us a unit costs beyond its blocks), so rows of many units per CTA
#   gain 3-10%: seed09, seed12-18, batch64x512, b16x512, tiny_*, seed10 /
#   seed13 / seed19 (m128 host plan); rows on m128d or the direct kernels
#   unchanged (same SASS). Outputs bitwise equal to the shipped build's (the
#   same arithmetic in the same order; ab.txt's last line compares the
#   reports' output digests). A risk: the tail waits for the next unit's Q
#   before its last P V; chprobe (chprobe-variant.patch) probes the Q
#   instead and takes the plain tail when it has not landed.
#   With --tile m128: whether chained m128 beats m128d on m128d's rows.
# First correctness: GPU tests and reliability with the variant (every
# configuration forced in them), memcheck, racecheck and synccheck through
# both plans; chprobe and chall (prepare-next.sh) on a subset. Timing:
# next-call2.sh.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
for d in /usr/local/cuda/bin /usr/local/cuda/compute-sanitizer; do [ -d "$d" ] && PATH="$PATH:$d"; done
t0=$(date +%s)
V=$D/var/chained.cubin
PAGEDATTN_ATTENTION_CUBIN=$V timeout 150 $D/gpu_tests --include-ignored --test-threads=1 --nocapture > "$OUT/gpu_tests.log" 2>&1
echo "gpu_tests (chained) rc=$? $(grep -E '^test result' $OUT/gpu_tests.log) $(( $(date +%s) - t0 ))s"
grep -E "panicked|FAILED" "$OUT/gpu_tests.log" | head -6
PAGEDATTN_ATTENTION_CUBIN=$V timeout 90 $D/gpu_reliability --include-ignored --test-threads=1 --nocapture > "$OUT/gpu_reliability.log" 2>&1
echo "gpu_reliability (chained) rc=$? $(grep -E '^test result' $OUT/gpu_reliability.log) $(( $(date +%s) - t0 ))s"
for plan in device host; do
  for tool in memcheck racecheck synccheck; do
    timeout 45 compute-sanitizer --tool $tool --error-exitcode 9 $D/pagedattn check --backend cuda --cpu-ref-max-pairs 0 \
      --attention-cubin $V --plan $plan --workloads $D/split.jsonl --generated 6 > "$OUT/san_${plan}_$tool.log" 2>&1
    echo "$tool (chained, $plan plan) rc=$? $(grep -E 'SUMMARY' $OUT/san_${plan}_$tool.log | tail -1) | $(( $(date +%s) - t0 ))s"
  done
done
PAGEDATTN_ATTENTION_CUBIN=$D/var/chprobe.cubin timeout 100 $D/gpu_tests --include-ignored --test-threads=1 --nocapture split deterministic host_plan edge_cases random_batches large_batches > "$OUT/gpu_tests_chprobe.log" 2>&1
echo "gpu_tests (chprobe, 6) rc=$? $(grep -E '^test result' $OUT/gpu_tests_chprobe.log) $(( $(date +%s) - t0 ))s"
timeout 45 compute-sanitizer --tool racecheck --error-exitcode 9 $D/pagedattn check --backend cuda --cpu-ref-max-pairs 0 \
  --attention-cubin $D/var/chprobe.cubin --workloads $D/split.jsonl --generated 6 > "$OUT/san_chprobe_racecheck.log" 2>&1
echo "racecheck (chprobe) rc=$? $(grep -E 'SUMMARY' $OUT/san_chprobe_racecheck.log | tail -1) | $(( $(date +%s) - t0 ))s"
PAGEDATTN_ATTENTION_CUBIN=$D/var/chall.cubin timeout 100 $D/gpu_tests --include-ignored --test-threads=1 --nocapture split deterministic host_plan > "$OUT/gpu_tests_chall.log" 2>&1
echo "gpu_tests (chall, 3) rc=$? $(grep -E '^test result' $OUT/gpu_tests_chall.log) $(( $(date +%s) - t0 ))s"
timeout 45 compute-sanitizer --tool racecheck --error-exitcode 9 $D/pagedattn check --backend cuda --cpu-ref-max-pairs 0 \
  --attention-cubin $D/var/chall.cubin --split 2 --workloads $D/split.jsonl --generated 6 > "$OUT/san_chall_racecheck.log" 2>&1
echo "racecheck (chall, split 2) rc=$? $(grep -E 'SUMMARY' $OUT/san_chall_racecheck.log | tail -1) | $(( $(date +%s) - t0 ))s"
PAGEDATTN_ATTENTION_CUBIN=$D/var/chearly.cubin timeout 60 $D/gpu_tests --include-ignored --test-threads=1 --nocapture deterministic host_plan random_batches > "$OUT/gpu_tests_chearly.log" 2>&1
echo "gpu_tests (chearly, 3) rc=$? $(grep -E '^test result' $OUT/gpu_tests_chearly.log) $(( $(date +%s) - t0 ))s"
cd "$OUT" && tar czf logs.tgz --exclude=logs.tgz * && rm -f *.log
echo "total $(( $(date +%s) - t0 ))s"
