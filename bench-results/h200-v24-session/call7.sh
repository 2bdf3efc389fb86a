#!/usr/bin/env bash
# Eighteenth session, call 7 (carry ["dist", "dist-main"]; prepare7.sh): data for the
# next refit of prefers_m192, not a change. A second draw from the random
# held-out calls (holdout4b: the next 12 the model gives to m192 and the
# next 12 it leaves), three rounds: 58d2020's CLI (no m192), this build,
# m192 forced.
#   Prediction: the 12 taken 0.80-0.95 of the m128 time; of the 12 left,
#   m192 forced slower on at least 9.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files h4b 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
B=dist/pagedattn
AB_ROUNDS=3 AB_TIMEOUT=150 OUT=$OUT/h4b bash scripts/device-ab.sh main=dist-main/pagedattn new=$B "m192=$B@--tile=m192" \
  -- --workloads dist/holdout4b.jsonl > "$OUT/holdout4b.txt" 2>&1
grep -vE "^\s*$" "$OUT/holdout4b.txt" | grep -v "rc=0" | grep -v "^|"
sed -n '/^| workload/,$p' "$OUT/holdout4b.txt" | head -30
