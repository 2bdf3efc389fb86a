#!/usr/bin/env bash
# Call 5: 00dd7bd (calls that cannot split direct again) against the
# session's start (base-pagedattn: v17.3's host and kernels, c3e6b59) on
# every set, two rounds; the GPU tests. Carry ["dist"].
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files ab *.log 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
B=dist/pagedattn
TESTS_TIMEOUT=200 bash scripts/device-run.sh tests > "$OUT/tests.log" 2>&1
grep -E "^gpu tests" "$OUT/tests.log"; grep -E "spread merge:|panicked" "$OUT/gpu_tests.log" | head -5
AB_ROUNDS=2 AB_TIMEOUT=150 OUT=$OUT/ab bash scripts/device-ab.sh base=dist/base-pagedattn new=$B \
  -- --workloads dist/seed.jsonl --workloads dist/scale.jsonl --workloads dist/shapes.jsonl --workloads dist/prefix.jsonl --workloads dist/serving.jsonl > "$OUT/ab.txt" 2>&1
mkdir -p "$OUT/j" && cp "$OUT"/ab/*.json "$OUT/j/" 2>/dev/null; (cd "$OUT" && tar czf json.tgz j && rm -rf j)
grep -E 'rc=' "$OUT/ab.txt"; sed -n '/^| workload/,$p' "$OUT/ab.txt"
