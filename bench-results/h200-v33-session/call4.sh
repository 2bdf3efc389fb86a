#!/usr/bin/env bash
# Call 4: the shipped tree's host plan against v17.9's on the main sets
# (seed, scale, shapes, prefix), two rounds: the non-direct entries' code
# changed (the split search, ~6% more instructions), their plans did not
# (none of these calls takes the spread fine split). Carry ["dist"].
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files ab 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
W=(--workloads dist/seed.jsonl --workloads dist/scale.jsonl --workloads dist/shapes.jsonl --workloads dist/prefix.jsonl)
AB_ROUNDS=2 AB_TIMEOUT=100 OUT=$OUT/ab bash scripts/device-ab.sh base=dist/base-pagedattn new=dist/pagedattn -- "${W[@]}" > "$OUT/ab.txt" 2>&1
grep -E "rc=|^geomean|output bits" "$OUT/ab.txt" | cut -c1-300
sed -n '/^| workload/,$p' "$OUT/ab.txt" | grep -v "output bits" | awk -F'|' '$5+0 < 0.98 || $5+0 > 1.02 || /workload|---/'
