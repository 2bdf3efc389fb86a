#!/usr/bin/env bash
# Prepared in the tenth session, not run (inputs from prepare-next.sh; carry
# ["dist"]; about 8 minutes). Whether the consumers' code size costs the
# rows of many short units (BENCHMARKS "Next candidates" 8).
#   prediction: if instruction fetch is part of a unit's fixed cost, fewsteps
#   (consumers 11% fewer instructions) is 1-3% faster on seed09-19 (planned
#   m64 / m128), batch64x512, tiny_*, and posonly (m128's consumers 22%
#   fewer, m64's 15%) a little more; the long rows unchanged (their loop is
#   the same code); outputs bitwise equal to the shipped build's on every row
#   (the digests, last line of ab.txt: every timed workload has a positive
#   scale). If both are equal to shipped, code size is not the lever and the
#   chained form's loss was its late loads alone. If posonly pays, ship it
#   as it is (its patch already removes the negative-scale code).
# Correctness first: fewsteps on the split / determinism / edge-case tests;
# posonly on every GPU test, reliability (its negative-scale cases exercise
# the negated Q), memcheck and racecheck through both plans. Then timing,
# two rounds; then ncu: warp states of shipped / fewsteps / posonly on
# seed10, seed18, tiny_b500, and a source profile of the shipped build on
# seed10 and seed18 with the stalls by source line
# (scripts/ncu_source_lines.py: where no_instruction falls).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist; B=$D/pagedattn
for d in /usr/local/cuda/bin /usr/local/cuda/compute-sanitizer /opt/nvidia/nsight-compute/*/; do [ -d "$d" ] && PATH="$PATH:$d"; done
t0=$(date +%s)
V=$D/var/fewsteps.cubin; P=$D/var/posonly.cubin
PAGEDATTN_ATTENTION_CUBIN=$V timeout 100 $D/gpu_tests --include-ignored --test-threads=1 --nocapture split deterministic host_plan edge_cases random_batches large_batches > "$OUT/gpu_tests_fewsteps.log" 2>&1
echo "gpu_tests (fewsteps, 6) rc=$? $(grep -E '^test result' $OUT/gpu_tests_fewsteps.log) $(( $(date +%s) - t0 ))s"
PAGEDATTN_ATTENTION_CUBIN=$P timeout 150 $D/gpu_tests --include-ignored --test-threads=1 --nocapture > "$OUT/gpu_tests.log" 2>&1
echo "gpu_tests (posonly) rc=$? $(grep -E '^test result' $OUT/gpu_tests.log) $(( $(date +%s) - t0 ))s"
grep -E "panicked|FAILED" "$OUT/gpu_tests.log" | head -6
PAGEDATTN_ATTENTION_CUBIN=$P timeout 90 $D/gpu_reliability --include-ignored --test-threads=1 --nocapture > "$OUT/gpu_reliability.log" 2>&1
echo "gpu_reliability (posonly) rc=$? $(grep -E '^test result' $OUT/gpu_reliability.log) $(( $(date +%s) - t0 ))s"
grep -E "panicked|FAILED" "$OUT/gpu_reliability.log" | head -6
for plan in device host; do
  for tool in memcheck racecheck; do
    timeout 45 compute-sanitizer --tool $tool --error-exitcode 9 $B check --backend cuda --cpu-ref-max-pairs 0 \
      --attention-cubin $P --plan $plan --workloads $D/split.jsonl --generated 6 > "$OUT/san_${plan}_$tool.log" 2>&1
    echo "$tool (posonly, $plan plan) rc=$? $(grep -E 'SUMMARY' $OUT/san_${plan}_$tool.log | tail -1) | $(( $(date +%s) - t0 ))s"
  done
done
W=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/shapes.jsonl --workloads $D/prefix.jsonl)
AB_ROUNDS=2 AB_TIMEOUT=120 OUT=$OUT/ab bash scripts/device-ab.sh shipped=$B fewsteps=$B@--attention-cubin=$V \
  posonly=$B@--attention-cubin=$P -- "${W[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"
for b in shipped fewsteps posonly; do
  ca=(); [ $b != shipped ] && ca=(--attention-cubin $D/var/$b.cubin)
  mkdir -p "$OUT/ncu/$b"
  for w in seed10 seed18 tiny_b500; do
    timeout 40 ncu --clock-control none --kernel-name regex:paged_prefill --launch-count 1 \
      --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats \
      --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis -o "$OUT/ncu/$b/row_$w" \
      $B bench --backend cuda --no-check --reps 1 --warmup 0 --cuda-timing checked "${ca[@]}" \
      --workloads $D/seed.jsonl --workloads $D/shapes.jsonl --filter "$w" > "$OUT/ncu/$b/row_$w.txt" 2>&1 \
      && ncu -i "$OUT/ncu/$b/row_$w.ncu-rep" --page raw --csv > "$OUT/ncu/$b/row_$w.csv" 2>&1
    rm -f "$OUT/ncu/$b/row_$w.ncu-rep"
  done
  python3 scripts/ncu_rows.py "$OUT/ncu/$b" > "$OUT/ncu_$b.txt" 2>&1
done
echo "ncu rows $(( $(date +%s) - t0 ))s"
gunzip -c $D/attention.disasm.gz > "$OUT/attention.disasm"
for w in seed10 seed18; do
  [ $(( $(date +%s) - t0 )) -gt 470 ] && break
  timeout 60 ncu --clock-control none --kernel-name regex:paged_prefill --launch-count 1 --set full --import-source yes \
    -o "$OUT/src_$w" -f $B bench --backend cuda --no-check --reps 1 --warmup 0 \
    --workloads $D/seed.jsonl --filter $w > "$OUT/ncu_src_$w.txt" 2>&1
  ncu -i "$OUT/src_$w.ncu-rep" --page source --csv --print-source sass > "$OUT/src_$w.csv" 2>/dev/null
  fn=$(grep -m1 -oE 'paged_prefill_m[0-9a-z_]+' "$OUT/ncu_src_$w.txt" || true)
  [ -n "$fn" ] || fn=$([ $w = seed10 ] && echo paged_prefill_m128 || echo paged_prefill_m64)
  python3 scripts/ncu_source_lines.py "$OUT/attention.disasm" "$OUT/src_$w.csv" $fn --top 30 \
    --src crates/pagedattn/kernels/attention.cu > "$OUT/stalls_$w.txt" 2>&1
  echo "source $w ($fn) rc=$? $(( $(date +%s) - t0 ))s"; head -8 "$OUT/stalls_$w.txt"
  gzip "$OUT/src_$w.csv"; rm -f "$OUT/src_$w.ncu-rep"
done
rm -f "$OUT/attention.disasm"
cd "$OUT" && mkdir -p j && cp ab/*.json j/ 2>/dev/null
tar czf logs.tgz --exclude=logs.tgz --exclude=j --exclude="ncu_*.txt" --exclude="stalls_*.txt" --exclude="*.csv.gz" * && tar czf json.tgz j && rm -rf ab j ncu *.log
grep -vE "^\s*$" ab.txt | grep -v "rc=0" | head -60
cat ncu_shipped.txt ncu_fewsteps.txt ncu_posonly.txt 2>/dev/null | cut -c1-160
echo "total $(( $(date +%s) - t0 ))s"
