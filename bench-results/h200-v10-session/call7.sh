#!/usr/bin/env bash
# Device call 7: the final build (cad583c's tree): GPU tests, and the four
# sanitizers on the device-plan path (`--plan device`) over the edge cases
# and 40 generated batches.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
for d in /usr/local/cuda/bin /usr/local/cuda/compute-sanitizer; do [ -d "$d" ] && PATH="$PATH:$d"; done
t0=$(date +%s)
timeout 100 $D/gpu_tests --include-ignored --test-threads=1 --nocapture > "$OUT/gpu_tests.log" 2>&1
echo "gpu_tests rc=$? $(grep -E '^test result' $OUT/gpu_tests.log) $(( $(date +%s) - t0 ))s"
grep "host plan:" "$OUT/gpu_tests.log"
for tool in memcheck racecheck synccheck initcheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $D/pagedattn check --backend cuda --cpu-ref-max-pairs 0 \
    --plan device --generated 40 > "$OUT/san_dev_$tool.log" 2>&1
  echo "$tool (device plan, generated) rc=$? $(grep -E 'SUMMARY' $OUT/san_dev_$tool.log | tail -1) $(tail -1 $OUT/san_dev_$tool.log | cut -c1-80) $(( $(date +%s) - t0 ))s"
done
cd "$OUT" && tar czf logs.tgz *.log && rm -f *.log; ls
