#!/usr/bin/env bash
# Call 8: the nineteenth session's next-call1.sh (BENCHMARKS "Next
# candidates", nineteenth 3) on 79c8a7b, one round for the device time left:
# m64 (now gathering 8 lanes a row) against m128dv and m128d forced on the
# decode sweep and its held-out draw. Carry ["dist"] with
#   python3 scripts/make-sweep-workloads.py --decode dist/decode-sweep.jsonl
#   python3 scripts/make-sweep-workloads.py --decode-holdout dist/decode-holdout.jsonl
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files ab 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
B=dist/pagedattn
AB_ROUNDS=1 AB_TIMEOUT=60 OUT=$OUT/ab bash scripts/device-ab.sh auto=$B m128dv=$B@--tile=m128dv\
  m128d=$B@--tile=m128d -- --workloads dist/decode-sweep.jsonl --workloads dist/decode-holdout.jsonl > "$OUT/tiles.txt" 2>&1
mkdir -p "$OUT/j" && cp "$OUT"/ab/*.json "$OUT/j/" 2>/dev/null; (cd "$OUT" && tar czf json.tgz j && rm -rf j)
sed -n '/^| workload/,$p' "$OUT/tiles.txt"
