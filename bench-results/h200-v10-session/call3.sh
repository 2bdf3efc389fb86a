#!/usr/bin/env bash
# Device call 3: the direct-call entry points. GPU tests, then two rounds of
# the host-plan build (f2b8ada, prev) against this build, auto and m64
# forced; then reliability, example and the sanitizers on this build.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
t0=$(date +%s)
timeout 150 $D/gpu_tests --include-ignored --test-threads=1 --nocapture > "$OUT/gpu_tests.log" 2>&1
echo "gpu_tests rc=$? $(grep -E '^test result' $OUT/gpu_tests.log) $(( $(date +%s) - t0 ))s"
grep -E "panicked|FAILED" "$OUT/gpu_tests.log" | head
W=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/shapes.jsonl)
for r in 1 2; do
  AB_TIMEOUT=120 OUT=$OUT/r$r bash scripts/device-ab.sh prev=$D/prev/pagedattn new=$D/pagedattn m64=$D/pagedattn@--tile=m64 \
    -- "${W[@]}" > "$OUT/ab-r$r.txt" 2>&1
  head -3 "$OUT/ab-r$r.txt"
done
echo "ab done $(( $(date +%s) - t0 ))s"
SAN_TIMEOUT=100 bash scripts/device-run.sh reliability example sanitize sanitize-generated > "$OUT/run.txt" 2>&1
grep -E "rc=" "$OUT/run.txt"
echo "total $(( $(date +%s) - t0 ))s"
cd "$OUT" && mkdir -p j && for r in 1 2; do for f in r$r/ab-*.json; do cp $f j/r$r-$(basename $f); done; done
tar czf logs.tgz --exclude=logs.tgz --exclude=j * && tar czf json.tgz j && rm -rf r1 r2 j *.log run.txt
ls
