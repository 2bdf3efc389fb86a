#!/usr/bin/env bash
# Call 2: m16 (16-row tiles, the GEMMs' operands swapped) first run: a
# forced-m16 bench with checks on the serving, shapes and seed sets beside
# auto; forced splits through m16 on the split and serving sets; then the
# GPU tests (every configuration incl. m16). Carry ["dist"].
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files ab sp *.log 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
B=dist/pagedattn
AB_ROUNDS=1 AB_TIMEOUT=150 OUT=$OUT/ab bash scripts/device-ab.sh auto=$B m16=$B@--tile=m16 \
  -- --workloads dist/serving.jsonl --workloads dist/shapes.jsonl --workloads dist/seed.jsonl > "$OUT/ab.txt" 2>&1
mkdir -p "$OUT/sp"
for s in 1 2 5; do
  for pl in host device; do
    timeout 120 $B bench --backend cuda --tile m16 --split $s --plan $pl --reps 3 --warmup 1 \
      --workloads dist/split.jsonl --workloads dist/serving.jsonl > "$OUT/sp/s$s-$pl.txt" 2>&1
    echo "split $s plan $pl: rc=$? $(grep -E '^[0-9]+ workloads?:' "$OUT/sp/s$s-$pl.txt")"
  done
done
TESTS_TIMEOUT=300 bash scripts/device-run.sh tests > "$OUT/tests.txt" 2>&1
grep -E 'panicked|FAIL|failed|test result' "$OUT/tests.txt" | head -20
grep -E 'rc=' "$OUT/ab.txt"; sed -n '/^| workload/,$p' "$OUT/ab.txt"
