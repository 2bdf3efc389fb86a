#!/usr/bin/env bash
# Call 7 (thirtieth session): the decode rule's m128dv side at small
# batches: 90 calls of 1-2 sequences of 11-15 queries over 512-6000 keys
# (mid-q-grid.py), auto (96069e4's rule) against m64 and m128dv forced,
# each with the automatic split, one round. Carry ["dist"].
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
python3 bench-results/h200-v36-session/mid-q-grid.py dist/midq.jsonl
AB_TIMEOUT=100 OUT=$OUT/cfg bash scripts/device-ab.sh auto=dist/pagedattn m64=dist/pagedattn@--tile=m64 dv=dist/pagedattn@--tile=m128dv -- --workloads dist/midq.jsonl > "$OUT/cfg.txt" 2>&1
grep -E "rc=" "$OUT/cfg.txt"; (cd "$OUT" && tar czf logs.tgz --remove-files cfg)
