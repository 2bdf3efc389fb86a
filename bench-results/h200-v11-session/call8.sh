#!/usr/bin/env bash
# Device call 8 (fifth session): the automatic split on calls of fewer than
# 16 queries per sequence over long cached prefixes (the m64 configuration:
# dist/sweep-m64.jsonl of `scripts/make-sweep-workloads.py --m64`, 8 calls of
# 2-256 sequences, 1-12 queries over 2048-32768 keys, pages shuffled): no
# split, fca3978 (dist/prev), this build (3817031; checked against the
# reference), two rounds.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
t0=$(date +%s)
AB_TIMEOUT=200 OUT=$OUT/r1 bash scripts/device-ab.sh never=$D/pagedattn@--split=never,--no-check prev=$D/prev/pagedattn@--no-check \
  new=$D/pagedattn -- --workloads $D/sweep-m64.jsonl > "$OUT/ab-r1.txt" 2>&1
cat "$OUT/ab-r1.txt"; echo "round 1 $(( $(date +%s) - t0 ))s"
AB_TIMEOUT=150 OUT=$OUT/r2 bash scripts/device-ab.sh new=$D/pagedattn@--no-check prev=$D/prev/pagedattn@--no-check \
  -- --workloads $D/sweep-m64.jsonl > "$OUT/ab-r2.txt" 2>&1
cat "$OUT/ab-r2.txt"; echo "round 2 $(( $(date +%s) - t0 ))s"
grep -E "sweep_" "$OUT/r1/ab-new.txt" | head -20
cd "$OUT" && mkdir -p j && for r in 1 2; do for f in r$r/ab-*.json; do cp $f j/r$r-$(basename $f); done; done
tar czf logs.tgz --exclude=logs.tgz --exclude=j * && tar czf json.tgz j && rm -rf r1 r2 j
ls; echo "total $(( $(date +%s) - t0 ))s"
