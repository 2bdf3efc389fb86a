#!/usr/bin/env bash
# Call 6: 9af8c21 (auto_chunk takes the configuration; the GPU tests' repeat
# and replay helper): the GPU tests; the seed set once. Carry ["dist"].
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files *.log 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
TESTS_TIMEOUT=220 bash scripts/device-run.sh tests > "$OUT/tests.log" 2>&1
grep -E "^gpu tests" "$OUT/tests.log"; grep -E "spread merge:|split-KV:|panicked" "$OUT/gpu_tests.log" | head -5
timeout 100 dist/pagedattn bench --backend cuda --workloads dist/seed.jsonl > "$OUT/seed.log" 2>&1
grep -E 'seed0[78]|workloads' "$OUT/seed.log" | head -5
