#!/usr/bin/env bash
# Device call 5 (fifth session): what a chunk of a split tile costs, one part
# removed at a time (diagnostic variants of scripts/variant-src.py, outputs
# wrong, so --no-check): nomerge (no merge by the last chunk), nosplitsync
# (no partial write, count or merge: chunks write like whole tiles), beside
# the shipped build, with the automatic split, forced chunks of 8 blocks and
# no split, on the cached-prefix calls; seed07/08 with chunks of 3.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
t0=$(date +%s)
P=(--no-check --workloads $D/prefix.jsonl --workloads $D/shapes.jsonl --filter prefix)
NM=--attention-cubin=$D/var/nomerge.cubin; NS=--attention-cubin=$D/var/nosplitsync.cubin
AB_TIMEOUT=100 OUT=$OUT/p bash scripts/device-ab.sh never=$D/pagedattn@--split=never auto=$D/pagedattn \
  auto_nomerge=$D/pagedattn@$NM auto_nosync=$D/pagedattn@$NS s8=$D/pagedattn@--split=8 \
  s8_nomerge=$D/pagedattn@$NM,--split=8 s8_nosync=$D/pagedattn@$NS,--split=8 -- "${P[@]}" > "$OUT/ab-prefix.txt" 2>&1
cat "$OUT/ab-prefix.txt"; echo "prefix done $(( $(date +%s) - t0 ))s"
S=(--no-check --workloads $D/seed.jsonl --filter seed07 --filter seed08 --filter seed11)
AB_TIMEOUT=100 OUT=$OUT/s bash scripts/device-ab.sh auto=$D/pagedattn s3=$D/pagedattn@--split=3 \
  s3_nomerge=$D/pagedattn@$NM,--split=3 s3_nosync=$D/pagedattn@$NS,--split=3 -- "${S[@]}" > "$OUT/ab-seed.txt" 2>&1
cat "$OUT/ab-seed.txt"; echo "seed done $(( $(date +%s) - t0 ))s"
cd "$OUT" && mkdir -p j && cp p/ab-*.json j/ 2>/dev/null; for f in s/ab-*.json; do cp $f j/seed-$(basename $f); done
tar czf logs.tgz --exclude=logs.tgz --exclude=j * && tar czf json.tgz j && rm -rf p s j
ls; echo "total $(( $(date +%s) - t0 ))s"
