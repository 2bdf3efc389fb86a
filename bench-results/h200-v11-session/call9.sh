#!/usr/bin/env bash
# Device call 9 (fifth session): seed07/08 (one sequence of 559 tokens, m128
# direct) against m64 forced, now that m64's masked softmax is cheaper; two
# rounds, with seed06 and seed10 (the neighbouring sizes) beside.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
t0=$(date +%s)
S=(--workloads $D/seed.jsonl --filter seed06 --filter seed07 --filter seed08 --filter seed10)
for r in 1 2; do
  AB_TIMEOUT=100 OUT=$OUT/r$r bash scripts/device-ab.sh auto=$D/pagedattn m64=$D/pagedattn@--tile=m64 -- "${S[@]}" > "$OUT/ab-r$r.txt" 2>&1
  cat "$OUT/ab-r$r.txt"
done
cd "$OUT" && mkdir -p j && for r in 1 2; do for f in r$r/ab-*.json; do cp $f j/r$r-$(basename $f); done; done
tar czf json.tgz j && rm -rf r1 r2 j
ls; echo "total $(( $(date +%s) - t0 ))s"
