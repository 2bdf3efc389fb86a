#!/usr/bin/env bash
# Device call 7 (fifth session): a chunk counted as 4 blocks instead of 3 in
# the automatic split (this tree) against 81e7cd9 (dist/os3), two rounds on
# the sweep shapes of call 6 (dist/sweep.jsonl) and the cached-prefix rows;
# GPU tests and two sanitizers over workloads/split.jsonl through the device
# plan on this build.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
for d in /usr/local/cuda/bin /usr/local/cuda/compute-sanitizer; do [ -d "$d" ] && PATH="$PATH:$d"; done
t0=$(date +%s)
timeout 150 $D/gpu_tests --include-ignored --test-threads=1 --nocapture > "$OUT/gpu_tests.log" 2>&1
echo "gpu_tests rc=$? $(grep -E '^test result' $OUT/gpu_tests.log) $(( $(date +%s) - t0 ))s"
grep -E "panicked|FAILED|host plan:|split-KV:" "$OUT/gpu_tests.log" | head -6
W=(--workloads $D/sweep.jsonl --workloads $D/prefix.jsonl --workloads $D/shapes.jsonl --filter sweep --filter prefix)
AB_TIMEOUT=150 OUT=$OUT/r1 bash scripts/device-ab.sh os3=$D/os3/pagedattn os4=$D/pagedattn -- "${W[@]}" > "$OUT/ab-r1.txt" 2>&1
AB_TIMEOUT=150 OUT=$OUT/r2 bash scripts/device-ab.sh os4=$D/pagedattn os3=$D/os3/pagedattn -- "${W[@]}" > "$OUT/ab-r2.txt" 2>&1
cat "$OUT/ab-r1.txt"; tail -n +3 "$OUT/ab-r2.txt" | grep -E "sweep_b1_q256_kv8192|geomean"; echo "ab $(( $(date +%s) - t0 ))s"
for tool in memcheck racecheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $D/pagedattn check --backend cuda --cpu-ref-max-pairs 0 \
    --plan device --workloads $D/split.jsonl --generated 10 > "$OUT/san_$tool.log" 2>&1
  echo "$tool (device plan) rc=$? $(grep -E 'SUMMARY' $OUT/san_$tool.log | tail -1) | $(grep -E 'workloads:' $OUT/san_$tool.log | tail -1) | $(( $(date +%s) - t0 ))s"
done
cd "$OUT" && mkdir -p j && for r in 1 2; do for f in r$r/ab-*.json; do cp $f j/r$r-$(basename $f); done; done
tar czf logs.tgz --exclude=logs.tgz --exclude=j * && tar czf json.tgz j && rm -rf r1 r2 j *.log
ls; echo "total $(( $(date +%s) - t0 ))s"
