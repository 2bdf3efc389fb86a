#!/usr/bin/env bash
# Device call 7 (sixth session): both tile configurations forced, and the
# automatic choice, on calls whose m128 tiles fit in one wave
# (scripts/make-sweep-workloads.py --tiles -> dist/tile-sweep.jsonl) and on
# seed07 / seed08 / seed10; two rounds. 7418975's build.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
t0=$(date +%s)
W=(--workloads $D/tile-sweep.jsonl --workloads $D/seed.jsonl --filter tiles --filter seed07 --filter seed08 --filter seed10 --filter seed11)
AB_TIMEOUT=60 OUT=$OUT/r1 bash scripts/device-ab.sh auto=$D/pagedattn m64=$D/pagedattn@--tile=m64 m128=$D/pagedattn@--tile=m128 -- "${W[@]}" > "$OUT/ab-r1.txt" 2>&1
AB_TIMEOUT=60 OUT=$OUT/r2 bash scripts/device-ab.sh m128=$D/pagedattn@--tile=m128 m64=$D/pagedattn@--tile=m64 auto=$D/pagedattn -- "${W[@]}" > "$OUT/ab-r2.txt" 2>&1
cd "$OUT" && mkdir -p j && for r in 1 2; do for f in r$r/ab-*.json; do cp $f j/r$r-$(basename $f); done; done
tar czf logs.tgz --exclude=logs.tgz --exclude=j * && tar czf json.tgz j && rm -rf r1 r2 j
cat ab-r1.txt; tail -n +3 ab-r2.txt
echo "total $(( $(date +%s) - t0 ))s"
