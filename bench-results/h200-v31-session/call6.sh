#!/usr/bin/env bash
# Call 6: d5fac24 (the spread merge's pieces, from 7 chunks a call) against
# the HEAD build before it (base-pagedattn) on the main sets (seed, scale,
# shapes, prefix), one round: every non-direct entry point's code changed.
# Carry ["dist"].
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files ab 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
AB_TIMEOUT=200 OUT=$OUT/ab bash scripts/device-ab.sh base=dist/base-pagedattn new=dist/pagedattn -- \
  --workloads dist/seed.jsonl --workloads dist/scale.jsonl --workloads dist/shapes.jsonl --workloads dist/prefix.jsonl > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$OUT/ab.txt"; grep -E "^geomean|output bits" "$OUT/ab.txt" | cut -c1-300
sed -n '/^| workload/,$p' "$OUT/ab.txt" | grep -v "output bits" | cut -c1-90
