#!/usr/bin/env bash
# Call 1 (thirty-ninth session): m192's one-wave bound (dist/pagedattn)
# against main before it (dist/old/pagedattn: 84d91fd, the same kernels)
# on the fresh draw (val-draws.py: dist/val.jsonl), m192, m128d and
# m128dv forced beside, two rounds; memcheck on the draw under both plans;
# then the table on the new build (with the wide and short-decode draws).
# Carry ["dist", ".peers"], dist's binaries compressed. As run, the table's
# json.tgz and logs.tgz did not come back (the device returns a few files
# only): call2.sh ran the table again, its outputs in one tar.
set -u
cd "$(dirname "$0")/../.."
bash scripts/device-unpack.sh
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
N=dist/pagedattn
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader > "$OUT/gpu.txt"; cat "$OUT/gpu.txt"
AB_ROUNDS=2 AB_TIMEOUT=70 OUT=$OUT/abv timeout 170 bash scripts/device-ab.sh old=dist/old/pagedattn new=$N \
  m192=$N@--tile=m192 m128d=$N@--tile=m128d m128dv=$N@--tile=m128dv -- --workloads dist/val.jsonl > "$OUT/val.txt" 2>&1
echo "val rc=$? $(( $(date +%s) - t0 ))s"
for p in host device; do
  timeout 40 compute-sanitizer --tool memcheck $N check --backend cuda --plan $p --workloads dist/val.jsonl > "$OUT/memcheck-val-$p.txt" 2>&1
  echo "memcheck $p rc=$? $(grep -E 'ERROR SUMMARY' "$OUT/memcheck-val-$p.txt" | tail -1)"
done
tar czf "$OUT/abv.tgz" -C "$OUT" abv && rm -rf "$OUT/abv"
python3 scripts/make-shapes-workloads.py --serving dist/serving.jsonl > /dev/null
left=$(( 585 - ($(date +%s) - t0) ))
TABLE_WIDE=1 TABLE_PEER_S=200 TABLE_R3_BEFORE_S=$(( left - 120 )) OUT=$OUT/table timeout $left bash scripts/device-table.sh > "$OUT/table.txt" 2>&1
echo "table rc=$? $(( $(date +%s) - t0 ))s"; tail -3 "$OUT/table.txt"
grep -E "^\| " "$OUT/val.txt" | cut -c1-110
