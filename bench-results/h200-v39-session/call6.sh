#!/usr/bin/env bash
# Call 6 (thirty-fifth session): the few-tiles rule as committed (36 tiles
# for 1-2 sequences, 24 for 3-4, tiles x keys <= 24 x 2304; dist/pagedattn)
# against main (dist/old/pagedattn) on a third fresh draw
# (prefix-draws.py draw3: dist/ph3.jsonl), two rounds, host and device plan,
# m64 forced beside; memcheck under both plans. Carry ["dist"].
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
N=dist/pagedattn
AB_ROUNDS=2 AB_TIMEOUT=60 OUT=$OUT/ab timeout 200 bash scripts/device-ab.sh old=dist/old/pagedattn new=$N \
  m64=$N@--tile=m64 newd=$N@--plan=device -- --workloads dist/ph3.jsonl > "$OUT/ph3.txt" 2>&1
grep -E "rc=" "$OUT/ph3.txt" | grep -v "rc=0"
for p in host device; do
  timeout 80 compute-sanitizer --tool memcheck $N check --backend cuda --plan $p --workloads dist/ph3.jsonl > "$OUT/memcheck-ph3-$p.txt" 2>&1
  echo "memcheck $p rc=$? $(grep -E 'ERROR SUMMARY' "$OUT/memcheck-ph3-$p.txt" | tail -1)"
done
grep -E "^\| " "$OUT/ph3.txt" | cut -c1-130
echo "total $(( $(date +%s) - t0 ))s"
