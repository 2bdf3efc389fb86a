#!/usr/bin/env bash
# Call 3 (thirty-fifth session): every tile configuration forced on the
# cached-prefix grid (prefix-draws.py grid, drawn here into dist/pg.jsonl, with
# wide_prefix3 and wide_prefix5 of make-shapes-workloads.py --wide
# appended), two rounds. Carry ["dist"] (dist/pagedattn: scripts/dist.sh on main).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
P=dist/pagedattn
AB_ROUNDS=2 AB_TIMEOUT=60 OUT=$OUT/ab timeout 420 bash scripts/device-ab.sh auto=$P m64=$P@--tile=m64 \
  m128d=$P@--tile=m128d m128dv=$P@--tile=m128dv m192=$P@--tile=m192 -- --workloads dist/pg.jsonl > "$OUT/pg.txt" 2>&1
grep -E "rc=" "$OUT/pg.txt" | grep -v "rc=0"
grep -E "^\| " "$OUT/pg.txt" | cut -c1-130
echo "total $(( $(date +%s) - t0 ))s"
