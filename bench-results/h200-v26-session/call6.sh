#!/usr/bin/env bash
# Call 6: checks of 79c8a7b (m64 gathering 8 lanes a row): the GPU tests;
# memcheck, racecheck, synccheck and initcheck with m64 forced over the
# split set and 6 generated batches (device plan). Carry ["dist"].
set -u
for d in /usr/local/cuda/bin /usr/local/cuda/compute-sanitizer; do [ -d "$d" ] && PATH="$PATH:$d"; done
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files *.log 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
TESTS_TIMEOUT=200 bash scripts/device-run.sh tests > "$OUT/tests.txt" 2>&1
grep -E 'panicked|differs' "$OUT/tests.txt" | head; grep -E '^gpu tests' "$OUT/tests.txt"
for tool in memcheck racecheck synccheck initcheck; do
  timeout 75 compute-sanitizer --tool $tool --error-exitcode 9 dist/pagedattn check --backend cuda \
    --cpu-ref-max-pairs 0 --tile m64 --plan device --workloads dist/split.jsonl --generated 6 > "$OUT/san_$tool.log" 2>&1
  echo "$tool rc=$? $(grep -E 'SUMMARY' "$OUT/san_$tool.log" | tail -1) $(grep -cE 'Race reported|Error:|Hazard' "$OUT/san_$tool.log") reports; $(grep -E '^[0-9]+ workloads?:' "$OUT/san_$tool.log")"
done
