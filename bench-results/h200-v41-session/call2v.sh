#!/usr/bin/env bash
# Call 2 as run (thirty-eighth session; call2.sh adds the table). The
# three rule changes (dist/pagedattn) against main before them
# (dist/old/pagedattn: 518bf38's schedule.rs, the same kernels) on a fresh
# draw (val-draws.py: dist/val.jsonl), m64, m128dv and m192 forced beside,
# two rounds; memcheck under both plans.
# Carry ["dist"], dist's binaries compressed.
set -u
bash scripts/device-unpack.sh
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
N=dist/pagedattn
AB_ROUNDS=2 AB_TIMEOUT=60 OUT=$OUT/abv timeout 150 bash scripts/device-ab.sh old=dist/old/pagedattn new=$N \
  m64=$N@--tile=m64 m128dv=$N@--tile=m128dv m192=$N@--tile=m192 -- --workloads dist/val.jsonl > "$OUT/val.txt" 2>&1
for p in host device; do
  timeout 60 compute-sanitizer --tool memcheck $N check --backend cuda --plan $p --workloads dist/val.jsonl > "$OUT/memcheck-val-$p.txt" 2>&1
  echo "memcheck $p rc=$? $(grep -E 'ERROR SUMMARY' "$OUT/memcheck-val-$p.txt" | tail -1)"
done
tar czf "$OUT/abv.tgz" -C "$OUT" abv && rm -rf "$OUT/abv"
echo "val done $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$OUT/val.txt" | grep -v "rc=0"
grep -E "^\| " "$OUT/val.txt" | cut -c1-100
echo "total $(( $(date +%s) - t0 ))s"
