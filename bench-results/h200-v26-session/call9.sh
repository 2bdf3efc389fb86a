#!/usr/bin/env bash
# Call 9: the decode rule (schedule::decode_prefers_m128dv, fitted on call
# 8) on a fresh draw (make-sweep-workloads.py --decode-holdout2) and the
# serving set: auto against m64 and m128dv forced, one round. Carry ["dist"].
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files ab 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
B=dist/pagedattn
AB_ROUNDS=1 AB_TIMEOUT=60 OUT=$OUT/ab bash scripts/device-ab.sh auto=$B m64=$B@--tile=m64 m128dv=$B@--tile=m128dv \
  -- --workloads dist/decode-holdout2.jsonl --workloads dist/serving.jsonl > "$OUT/ab.txt" 2>&1
mkdir -p "$OUT/j" && cp "$OUT"/ab/*.json "$OUT/j/" 2>/dev/null; (cd "$OUT" && tar czf json.tgz j && rm -rf j)
grep -E 'rc=' "$OUT/ab.txt"; sed -n '/^| workload/,$p' "$OUT/ab.txt"
