#!/usr/bin/env bash
# Call 4: the spread merge's pieces (a row for at most 8 chunks, half a row
# for 16, a quarter for 64; 16 bytes a lane) and the spread merge from 7
# chunks, the shipped build: (1) the GPU tests; (2) the HEAD build before it
# (base-pagedattn) against this build, its host and device plans, two
# rounds, on the spread calls of many rows, the four short-decode draws, the
# split set and the seed set; (3) the four sanitizers over 15 calls that take
# the new pieces (dist/san.jsonl), both plans. Carry ["dist"].
set -u
for d in /usr/local/cuda/bin /usr/local/cuda/compute-sanitizer; do [ -d "$d" ] && PATH="$PATH:$d"; done
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files ab *.log 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
P=dist/pagedattn
TESTS_TIMEOUT=150 bash scripts/device-run.sh tests > "$OUT/tests.log" 2>&1
grep -E "^gpu tests|spread merge:" "$OUT/tests.log" "$OUT/gpu_tests.log" | head; grep -E "panicked" "$OUT/gpu_tests.log" | head -5
echo "tests $(( $(date +%s) - t0 ))s"
AB_ROUNDS=2 AB_TIMEOUT=150 OUT=$OUT/ab bash scripts/device-ab.sh base=dist/base-pagedattn new=$P newdev=$P@--plan=device \
  -- --workloads dist/spreadfrag.jsonl --workloads dist/short4.jsonl --workloads dist/split.jsonl --workloads dist/seed.jsonl > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$OUT/ab.txt" | grep -v "rc=0"; grep -E "^geomean|output bits" "$OUT/ab.txt" | cut -c1-600
for tool in memcheck synccheck initcheck racecheck; do
  for plan in host device; do
    timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $P check --backend cuda --cpu-ref-max-pairs 0 \
      --plan $plan --workloads dist/san.jsonl > "$OUT/san_${tool}_$plan.log" 2>&1
    echo "$tool $plan rc=$? $(grep -E 'SUMMARY' "$OUT/san_${tool}_$plan.log" | tail -1) $(grep -cE 'Race reported|Error:|Hazard' "$OUT/san_${tool}_$plan.log") reports; $(grep -E '^[0-9]+ workloads?:' "$OUT/san_${tool}_$plan.log") $(( $(date +%s) - t0 ))s"
  done
done
sed -n '/^| workload/,$p' "$OUT/ab.txt" | grep -v "output bits" | cut -c1-120
