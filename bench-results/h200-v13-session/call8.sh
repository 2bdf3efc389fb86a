#!/usr/bin/env bash
# Device call 8 (seventh session): the table. This tree's build (dist: the
# softmax fast path of 2a5c4c9, = spec3) against 7418975's kernel
# (dist/var/base.cubin) on seed + scale + prefix; GPU tests, reliability
# tests and the four sanitizers (device plan, split.jsonl + 6 generated
# batches) on this build; FlashInfer fa2/fa3 on seed + scale.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
for d in /usr/local/cuda/bin /usr/local/cuda/compute-sanitizer; do [ -d "$d" ] && PATH="$PATH:$d"; done
t0=$(date +%s)
timeout 150 $D/gpu_tests --include-ignored --test-threads=1 --nocapture > "$OUT/gpu_tests.log" 2>&1
echo "gpu_tests rc=$? $(grep -E '^test result' $OUT/gpu_tests.log) $(( $(date +%s) - t0 ))s"
grep -E "panicked|FAILED|late reference" "$OUT/gpu_tests.log" | head -4
timeout 90 $D/gpu_reliability --include-ignored --test-threads=1 --nocapture > "$OUT/gpu_reliability.log" 2>&1
echo "gpu_reliability rc=$? $(grep -E '^test result' $OUT/gpu_reliability.log) $(( $(date +%s) - t0 ))s"
for tool in memcheck racecheck synccheck initcheck; do
  timeout 45 compute-sanitizer --tool $tool --error-exitcode 9 $D/pagedattn check --backend cuda --cpu-ref-max-pairs 0 \
    --plan device --workloads $D/split.jsonl --generated 6 > "$OUT/san_$tool.log" 2>&1
  echo "$tool rc=$? $(grep -E 'SUMMARY' $OUT/san_$tool.log | tail -1) | $(grep -E 'workloads:' $OUT/san_$tool.log | tail -1) | $(( $(date +%s) - t0 ))s"
done
W=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/prefix.jsonl)
AB_TIMEOUT=60 OUT=$OUT/r1 bash scripts/device-ab.sh base=$D/pagedattn@--attention-cubin=$D/var/base.cubin new=$D/pagedattn -- "${W[@]}" > "$OUT/ab-r1.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"
extra=(); if [ -f .peers/flashinfer/pkgs/aot_so.tar.xz ]; then extra=(--no-prebuild); export FLASHINFER_DISABLE_JIT=1; fi
left=$(( 420 - ($(date +%s) - t0) )); [ $left -lt 20 ] && left=20
OUT="$OUT/peer" timeout $left bash .peers/flashinfer/device_run.sh --workloads seed=$D/seed.jsonl scale=$D/scale.jsonl \
  --backends fa2,fa3 --deadline-s $(( left - 25 )) --target-ms 40 "${extra[@]}" > "$OUT/peer.log" 2>&1
echo "peer rc=$? $(( $(date +%s) - t0 ))s"; tail -2 "$OUT/peer.log"
cd "$OUT" && mkdir -p j && for f in r1/ab-*.json; do cp $f j/r1-$(basename $f); done
cp peer/results.json j/flashinfer-peer.json 2>/dev/null
tar czf logs.tgz --exclude=logs.tgz --exclude=j * && tar czf json.tgz j && rm -rf r1 peer j *.log
cat ab-r1.txt | head -60
echo "total $(( $(date +%s) - t0 ))s"
