#!/usr/bin/env bash
# Device call 2: two interleaved rounds of c6fa151 (base), the host-plan build
# (f2b8ada), its smem-address variant and a diagnostic without the steady
# loop's proxy fence (outputs still checked); the 7c9e025 binary once; then
# GPU tests on the variant and the sanitizers on the host-plan path.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
t0=$(date +%s)
W=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/shapes.jsonl)
for r in 1 2; do
  AB_TIMEOUT=120 OUT=$OUT/r$r bash scripts/device-ab.sh base=$D/base/pagedattn host=$D/pagedattn \
    smem=$D/pagedattn@--attention-cubin=$D/var/smemaddr.cubin nofence=$D/pagedattn@--attention-cubin=$D/diag/nofence.cubin \
    -- "${W[@]}" > "$OUT/ab-r$r.txt" 2>&1
  head -4 "$OUT/ab-r$r.txt"
done
AB_TIMEOUT=120 OUT=$OUT/r3 bash scripts/device-ab.sh old7c=$D/old7c/pagedattn -- "${W[@]}" > "$OUT/ab-r3.txt" 2>&1; head -1 "$OUT/ab-r3.txt"
echo "ab done $(( $(date +%s) - t0 ))s"
PAGEDATTN_ATTENTION_CUBIN=$D/var/smemaddr.cubin timeout 150 $D/gpu_tests --include-ignored --test-threads=1 --nocapture > "$OUT/gpu_tests_smem.log" 2>&1
echo "gpu_tests(smemaddr) rc=$? $(grep -E '^test result' $OUT/gpu_tests_smem.log) $(( $(date +%s) - t0 ))s"
SAN_TIMEOUT=100 bash scripts/device-run.sh sanitize-generated > "$OUT/san.txt" 2>&1   # embedded kernel, host plan
echo "san-gen done $(( $(date +%s) - t0 ))s"; grep -E "sanitizer .*rc=" "$OUT/san.txt"
if [ $(( $(date +%s) - t0 )) -lt 420 ]; then
  SAN_TIMEOUT=60 bash scripts/device-run.sh sanitize-variants > "$OUT/san-var.txt" 2>&1
  grep -E "sanitizer .*rc=" "$OUT/san-var.txt"
fi
echo "total $(( $(date +%s) - t0 ))s"
cd "$OUT" && mkdir -p j && cp r1/ab-*.json j/ 2>/dev/null; for f in r2/ab-*.json; do cp $f j/r2-$(basename $f); done; cp r3/ab-old7c.json j/ 2>/dev/null
tar czf logs.tgz --exclude=logs.tgz --exclude=j * && tar czf json.tgz j && rm -rf r1 r2 r3 j *.log san*.txt
ls
