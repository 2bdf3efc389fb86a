#!/usr/bin/env bash
# Call 5 (thirty-fifth session): the few-tiles rule at 36 tiles (dist/pagedattn)
# against 24 (dist/r24/pagedattn, call 4's build) and main (dist/old/pagedattn),
# m64 forced beside, on a second fresh draw (prefix-draws.py draw2:
# dist/ph2.jsonl), two rounds; memcheck on the 36-tile build. Carry ["dist"].
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
N=dist/pagedattn
AB_ROUNDS=2 AB_TIMEOUT=60 OUT=$OUT/ab timeout 200 bash scripts/device-ab.sh old=dist/old/pagedattn r24=dist/r24/pagedattn \
  r36=$N m64=$N@--tile=m64 -- --workloads dist/ph2.jsonl > "$OUT/ph2.txt" 2>&1
grep -E "rc=" "$OUT/ph2.txt" | grep -v "rc=0"
timeout 100 compute-sanitizer --tool memcheck $N check --backend cuda --workloads dist/ph2.jsonl > "$OUT/memcheck-ph2.txt" 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' "$OUT/memcheck-ph2.txt" | tail -1)"
grep -E "^\| " "$OUT/ph2.txt" | cut -c1-130
echo "total $(( $(date +%s) - t0 ))s"
