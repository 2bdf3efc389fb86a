#!/usr/bin/env bash
# Call 3 (twenty-fourth session): call 2's A/B again (its workload files
# repeated three names): v17.6 against this build, its host and device
# plans, two rounds, on the 50 short-decode calls of call 1 and the wide
# draw's wide_prefix3. Carry ["dist"].
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files ab 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
P=dist/pagedattn
AB_ROUNDS=2 AB_TIMEOUT=60 OUT=$OUT/ab bash scripts/device-ab.sh base=dist/base-pagedattn new=$P newdev=$P@--plan=device \
  -- --workloads dist/sdfrag.jsonl --workloads dist/wp3.jsonl > "$OUT/ab.txt" 2>&1
echo "short $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$OUT/ab.txt" | grep -v "rc=0" | head; sed -n '/^| workload/,$p' "$OUT/ab.txt"
mkdir -p "$OUT/j" && for f in "$OUT"/ab/*.json; do [ -f "$f" ] && cp "$f" "$OUT/j/ab-$(basename "$f")"; done
(cd "$OUT" && tar czf json.tgz j && rm -rf j)
