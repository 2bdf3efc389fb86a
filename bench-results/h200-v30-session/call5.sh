#!/usr/bin/env bash
# Call 5 (twenty-fourth session): the four sanitizers over the split set and
# the 50 short-decode calls of call 1 with the device plan (the kernel's
# auto_chunk changed in e64248f), the automatic configuration.
# Carry ["dist"].
set -u
for d in /usr/local/cuda/bin /usr/local/cuda/compute-sanitizer; do [ -d "$d" ] && PATH="$PATH:$d"; done
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files *.log 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
for tool in memcheck synccheck initcheck racecheck; do
  [ $(( $(date +%s) - t0 )) -gt 300 ] && { echo "$tool skipped (time)"; continue; }
  timeout 75 compute-sanitizer --tool $tool --error-exitcode 9 dist/pagedattn check --backend cuda \
    --cpu-ref-max-pairs 0 --plan device --workloads dist/split.jsonl --workloads dist/sdfrag.jsonl > "$OUT/san_$tool.log" 2>&1
  echo "$tool rc=$? $(grep -E 'SUMMARY' "$OUT/san_$tool.log" | tail -1) $(grep -cE 'Race reported|Error:|Hazard' "$OUT/san_$tool.log") reports; $(grep -E '^[0-9]+ workloads?:' "$OUT/san_$tool.log") $(( $(date +%s) - t0 ))s"
done
