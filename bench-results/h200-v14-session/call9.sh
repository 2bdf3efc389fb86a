#!/usr/bin/env bash
# Device call 9 (eighth session), the last of its device time: the third
# configuration m128d (3-deep K/V ring, one Q slot) beside m128 and m64,
# chosen per call (TileConfig::choose), as this tree ships it. In order of
# what matters, as far as the time left allows: GPU tests (every
# configuration), this build against the previous one (dist/prev: cb527a7)
# on seed + scale + shapes + prefix (one round), memcheck and racecheck
# through the device plan.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
for d in /usr/local/cuda/bin /usr/local/cuda/compute-sanitizer; do [ -d "$d" ] && PATH="$PATH:$d"; done
t0=$(date +%s)
timeout 130 $D/gpu_tests --include-ignored --test-threads=1 --nocapture > "$OUT/gpu_tests.log" 2>&1
echo "gpu_tests rc=$? $(grep -E '^test result' $OUT/gpu_tests.log) $(( $(date +%s) - t0 ))s"
grep -E "panicked|FAILED" "$OUT/gpu_tests.log" | head -6
W=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/shapes.jsonl --workloads $D/prefix.jsonl)
AB_TIMEOUT=60 OUT=$OUT/ab bash scripts/device-ab.sh prev=$D/prev/pagedattn new=$D/pagedattn -- "${W[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"
grep -vE "^\s*$" "$OUT/ab.txt" | head -64
for tool in memcheck racecheck; do
  timeout 25 compute-sanitizer --tool $tool --error-exitcode 9 $D/pagedattn check --backend cuda --cpu-ref-max-pairs 0 \
    --plan device --workloads $D/split.jsonl --generated 6 > "$OUT/san_device_$tool.log" 2>&1
  echo "$tool (device plan) rc=$? $(grep -E 'SUMMARY' $OUT/san_device_$tool.log | tail -1) | $(grep -E 'workloads:' $OUT/san_device_$tool.log | tail -1) | $(( $(date +%s) - t0 ))s"
done
echo "total $(( $(date +%s) - t0 ))s"
