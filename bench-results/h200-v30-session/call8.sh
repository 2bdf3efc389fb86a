#!/usr/bin/env bash
# Call 8 (twenty-fourth session): the spread merge's chunks of full tiles
# keep the cost of 4 blocks (host and kernel): (1) the GPU tests; (2) d370ebf
# (base-pagedattn) against this build, its host and device plans, one round,
# on 16 of call 7's calls (the 5 that move and 11 that do not). Carry ["dist"].
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files ab *.log 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
P=dist/pagedattn
TESTS_TIMEOUT=120 bash scripts/device-run.sh tests > "$OUT/tests.log" 2>&1
grep -E "^gpu tests" "$OUT/tests.log"; grep -E "panicked" "$OUT/gpu_tests.log" | head -5
echo "tests $(( $(date +%s) - t0 ))s"
AB_TIMEOUT=40 OUT=$OUT/ab bash scripts/device-ab.sh base=dist/base-pagedattn new=$P newdev=$P@--plan=device \
  -- --workloads dist/sf.jsonl > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$OUT/ab.txt" | grep -v "rc=0"; sed -n '/^| workload/,$p' "$OUT/ab.txt"
mkdir -p "$OUT/j" && for f in "$OUT"/ab/*.json; do [ -f "$f" ] && cp "$f" "$OUT/j/"; done
(cd "$OUT" && tar czf json.tgz j && rm -rf j)
