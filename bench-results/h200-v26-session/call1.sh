#!/usr/bin/env bash
# Call 1: m64 ring variants (m64-variants.sh) against main's m64, one round,
# on the serving, seed and shapes sets (auto tiles: the variants replace m64
# only). Carry ["dist"] (main's dist.sh without gpu_tests, gpu_reliability,
# example_gpu, attention.cubin).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files ab 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
B=dist/pagedattn
AB_ROUNDS=1 AB_TIMEOUT=150 OUT=$OUT/ab bash scripts/device-ab.sh base=$B \
  v3q1=$B@--attention-cubin=dist/var/v3q1.cubin s4c1=$B@--attention-cubin=dist/var/s4c1.cubin \
  s5c1=$B@--attention-cubin=dist/var/s5c1.cubin \
  -- --workloads dist/serving.jsonl --workloads dist/seed.jsonl --workloads dist/shapes.jsonl > "$OUT/ab.txt" 2>&1
mkdir -p "$OUT/j" && cp "$OUT"/ab/*.json "$OUT/j/" 2>/dev/null; (cd "$OUT" && tar czf json.tgz j && rm -rf j)
grep -E 'rc=' "$OUT/ab.txt"; sed -n '/^| workload/,$p' "$OUT/ab.txt"
