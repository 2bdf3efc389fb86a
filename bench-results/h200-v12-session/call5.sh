#!/usr/bin/env bash
# Device call 5 (sixth session): the table. 7418975's build (dist: the
# warp-uniform descriptors) against 65f74c0's (dist/prev), two rounds on
# seed + scale + shapes + prefix; GPU tests and two sanitizers (host and
# device plans) on this build; FlashInfer on seed + scale + shapes; 7c9e025
# (dist/7c9e025) in round 1.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
for d in /usr/local/cuda/bin /usr/local/cuda/compute-sanitizer; do [ -d "$d" ] && PATH="$PATH:$d"; done
t0=$(date +%s)
timeout 150 $D/gpu_tests --include-ignored --test-threads=1 --nocapture > "$OUT/gpu_tests.log" 2>&1
echo "gpu_tests rc=$? $(grep -E '^test result' $OUT/gpu_tests.log) $(( $(date +%s) - t0 ))s"
grep -E "panicked|FAILED|host plan:|split-KV:|determinism" "$OUT/gpu_tests.log" | head -6
for tool in memcheck racecheck; do for plan in host device; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $D/pagedattn check --backend cuda --cpu-ref-max-pairs 0 \
    --plan $plan --workloads $D/split.jsonl --generated 10 > "$OUT/san_${tool}_$plan.log" 2>&1
  echo "$tool ($plan plan) rc=$? $(grep -E 'SUMMARY' $OUT/san_${tool}_$plan.log | tail -1) | $(grep -E 'workloads:' $OUT/san_${tool}_$plan.log | tail -1) | $(( $(date +%s) - t0 ))s"
done; done
W=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/shapes.jsonl --workloads $D/prefix.jsonl)
AB_TIMEOUT=100 OUT=$OUT/r1 bash scripts/device-ab.sh prev=$D/prev/pagedattn new=$D/pagedattn v7c=$D/7c9e025/pagedattn -- "${W[@]}" > "$OUT/ab-r1.txt" 2>&1
AB_TIMEOUT=100 OUT=$OUT/r2 bash scripts/device-ab.sh new=$D/pagedattn prev=$D/prev/pagedattn -- "${W[@]}" > "$OUT/ab-r2.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"
extra=(); if [ -f .peers/flashinfer/pkgs/aot_so.tar.xz ]; then extra=(--no-prebuild); export FLASHINFER_DISABLE_JIT=1; fi
left=$(( 575 - ($(date +%s) - t0) )); [ $left -lt 20 ] && left=20
OUT="$OUT/peer" timeout $left bash .peers/flashinfer/device_run.sh --workloads seed=$D/seed.jsonl scale=$D/scale.jsonl shapes=$D/shapes.jsonl \
  --backends fa2,fa3 --deadline-s $(( left - 30 )) --target-ms 60 "${extra[@]}" > "$OUT/peer.log" 2>&1
echo "peer rc=$? $(( $(date +%s) - t0 ))s"; tail -2 "$OUT/peer.log"
cd "$OUT" && mkdir -p j && for r in 1 2; do for f in r$r/ab-*.json; do cp $f j/r$r-$(basename $f); done; done
cp peer/results.json j/flashinfer-peer.json 2>/dev/null
tar czf logs.tgz --exclude=logs.tgz --exclude=j * && tar czf json.tgz j && rm -rf r1 r2 peer j *.log
tail -n +1 ab-r1.txt | head -60
echo "total $(( $(date +%s) - t0 ))s"
