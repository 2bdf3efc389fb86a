#!/usr/bin/env bash
# Call 4 (thirty-fifth session): the few-tiles rule (M64_FEW_TILES128_MAX)
# against main's build on a fresh draw (prefix-draws.py draw1, with the two
# calls of the other sets it moves appended: dist/ph.jsonl), two rounds,
# host and device plan, m64 forced beside; memcheck on the new build over
# the draw. Carry ["dist"]: dist/pagedattn (the rule), dist/old/pagedattn (fef6c5b).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
N=dist/pagedattn; O=dist/old/pagedattn
AB_ROUNDS=2 AB_TIMEOUT=60 OUT=$OUT/ab timeout 300 bash scripts/device-ab.sh old=$O new=$N m64=$N@--tile=m64 \
  newd=$N@--plan=device -- --workloads dist/ph.jsonl > "$OUT/ph.txt" 2>&1
grep -E "rc=" "$OUT/ph.txt" | grep -v "rc=0"
echo "ab $(( $(date +%s) - t0 ))s"
for p in host device; do
  timeout 100 compute-sanitizer --tool memcheck $N check --backend cuda --plan $p --workloads dist/ph.jsonl > "$OUT/memcheck-$p.txt" 2>&1
  echo "memcheck $p rc=$? $(grep -E 'ERROR SUMMARY' "$OUT/memcheck-$p.txt" | tail -1)"
done
grep -E "^\| " "$OUT/ph.txt" | cut -c1-130
echo "total $(( $(date +%s) - t0 ))s"
