#!/usr/bin/env bash
# Device call 6: the tile choice for cached prefixes (m128 from 16 queries
# over 320+ keys), confirmed: this build on seed + shapes + prefix, checked.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
AB_TIMEOUT=100 OUT=$OUT/a bash scripts/device-ab.sh auto=$D/pagedattn \
  -- --workloads $D/seed.jsonl --workloads $D/shapes.jsonl --workloads $D/prefix.jsonl > "$OUT/ab.txt" 2>&1
cat "$OUT/ab.txt" | tail -50
cp $OUT/a/ab-auto.json $OUT/ab-auto.json; rm -rf $OUT/a
