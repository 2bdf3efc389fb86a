#!/usr/bin/env bash
# The eleventh session's call 3 (= h200-v16-session/call4.sh on the new
# shipped build, 747034f, with the source stalls of seed00 and seed10 added).
# Everything but the table on the shipped build (dist/ from scripts/dist.sh and dist/wheels from scripts/build-wheel.sh; carry
# ["dist", ".peers", ".whl"]): GPU tests, GPU reliability, the four
# sanitizers through the device and the host plan (split.jsonl + 6
# generated batches), the Python package's GPU pytest and FlashInfer-Bench's
# benchmark and evaluator (ours and FlashInfer's wrapper, same call).
# About 6 minutes.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
for d in /usr/local/cuda/bin /usr/local/cuda/compute-sanitizer; do [ -d "$d" ] && PATH="$PATH:$d"; done
t0=$(date +%s)
timeout 150 $D/gpu_tests --include-ignored --test-threads=1 --nocapture > "$OUT/gpu_tests.log" 2>&1
echo "gpu_tests rc=$? $(grep -E '^test result' $OUT/gpu_tests.log) $(( $(date +%s) - t0 ))s"
grep -E "panicked|FAILED" "$OUT/gpu_tests.log" | head -4
timeout 90 $D/gpu_reliability --include-ignored --test-threads=1 --nocapture > "$OUT/gpu_reliability.log" 2>&1
echo "gpu_reliability rc=$? $(grep -E '^test result' $OUT/gpu_reliability.log) $(( $(date +%s) - t0 ))s"
for plan in device host; do
  for tool in memcheck racecheck synccheck initcheck; do
    timeout 45 compute-sanitizer --tool $tool --error-exitcode 9 $D/pagedattn check --backend cuda --cpu-ref-max-pairs 0 \
      --plan $plan --workloads $D/split.jsonl --generated 6 > "$OUT/san_${plan}_$tool.log" 2>&1
    echo "$tool ($plan plan) rc=$? $(grep -E 'SUMMARY' $OUT/san_${plan}_$tool.log | tail -1) | $(grep -E 'workloads:' $OUT/san_${plan}_$tool.log | tail -1) | $(( $(date +%s) - t0 ))s"
  done
done
left=$(( 420 - ($(date +%s) - t0) )); [ $left -lt 30 ] && left=30
OUT=$OUT/py timeout $left bash scripts/device-python.sh pytest suite > "$OUT/py.txt" 2>&1
echo "python rc=$? $(( $(date +%s) - t0 ))s"; grep -A6 "=== summary" "$OUT/py.txt"
# Where the warp samples fall, by source line (scripts/ncu_source_lines.py),
# on seed00 (m64 direct: how much is instruction fetch) and seed10 (m128).
for d in /opt/nvidia/nsight-compute/*/; do [ -d "$d" ] && PATH="$PATH:$d"; done
gunzip -c $D/attention.disasm.gz > "$OUT/attention.disasm"
for w in seed00 seed10; do
  [ $(( $(date +%s) - t0 )) -gt 500 ] && break
  timeout 45 ncu --clock-control none --kernel-name regex:paged_prefill --launch-count 1 --set full --import-source yes \
    -o "$OUT/src_$w" -f $D/pagedattn bench --backend cuda --no-check --reps 1 --warmup 0 \
    --workloads $D/seed.jsonl --filter $w > "$OUT/ncu_src_$w.txt" 2>&1
  ncu -i "$OUT/src_$w.ncu-rep" --page source --csv --print-source sass > "$OUT/src_$w.csv" 2>/dev/null
  fn=$(grep -m1 -oE 'paged_prefill_m[0-9a-z_]+' "$OUT/ncu_src_$w.txt" || true)
  [ -n "$fn" ] || fn=$([ $w = seed10 ] && echo paged_prefill_m128 || echo paged_prefill_m64_direct)
  python3 scripts/ncu_source_lines.py "$OUT/attention.disasm" "$OUT/src_$w.csv" $fn --top 30 \
    --src crates/pagedattn/kernels/attention.cu > "$OUT/stalls_$w.txt" 2>&1
  echo "source $w ($fn) rc=$? $(( $(date +%s) - t0 ))s"; head -8 "$OUT/stalls_$w.txt"
  gzip "$OUT/src_$w.csv"; rm -f "$OUT/src_$w.ncu-rep"
done
rm -f "$OUT/attention.disasm"
cd "$OUT" && mkdir -p j && cp py/suite/suite_results.json j/ 2>/dev/null; cp py/suite/suite_results.md j/ 2>/dev/null
tar czf logs.tgz --exclude=logs.tgz --exclude=j --exclude="stalls_*.txt" --exclude="*.csv.gz" * && tar czf json.tgz j && rm -rf py j *.log
echo "total $(( $(date +%s) - t0 ))s"
