#!/usr/bin/env bash
# Call 5: the tree (m64 gathers 8 lanes a row) against g8all (every
# configuration 8 lanes a row), two rounds on every set; forced 128-row
# tiles on the decode rows with both. Carry ["dist"].
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files ab ab2 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
B=dist/pagedattn; G=--attention-cubin=dist/var/g8all.cubin
AB_ROUNDS=2 AB_TIMEOUT=200 OUT=$OUT/ab bash scripts/device-ab.sh tree=$B g8all=$B@$G \
  -- --workloads dist/seed.jsonl --workloads dist/scale.jsonl --workloads dist/prefix.jsonl \
  --workloads dist/shapes.jsonl --workloads dist/serving.jsonl > "$OUT/ab.txt" 2>&1
AB_ROUNDS=1 AB_TIMEOUT=150 OUT=$OUT/ab2 bash scripts/device-ab.sh tree=$B dv=$B@--tile=m128dv dvg8=$B@--tile=m128dv,$G \
  d=$B@--tile=m128d dg8=$B@--tile=m128d,$G \
  -- --workloads dist/serving.jsonl --filter long_b1 --filter decode --filter spec > "$OUT/ab2.txt" 2>&1
grep -E 'rc=' "$OUT/ab.txt" "$OUT/ab2.txt"; sed -n '/^| workload/,$p' "$OUT/ab.txt"; sed -n '/^| workload/,$p' "$OUT/ab2.txt"
