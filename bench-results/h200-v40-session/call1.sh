#!/usr/bin/env bash
# Call 1 (thirty-seventh session). (a) The thirty-fifth session's call 6: the
# few-tiles rule as committed (dist/pagedattn = 1ef08c7) against fef6c5b
# (dist/old/pagedattn: its schedule.rs, the same kernels) on prefix-draws.py
# draw3 (dist/ph3.jsonl), m64 forced and the device plan beside; memcheck
# under both plans. (b) Grid A (grids.py dec: dist/ga.jsonl): auto, m64,
# m128dv. (c) Grid B (grids.py m192: dist/gb.jsonl): auto, m192, m128d,
# m128dv. Two rounds each. (d) The checks on 1ef08c7's build (GPU tests,
# reliability, the four sanitizers under both plans). Carry ["dist"], dist's
# binaries compressed (scripts/device-unpack.sh).
set -u
bash scripts/device-unpack.sh
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
N=dist/pagedattn
AB_ROUNDS=2 AB_TIMEOUT=60 OUT=$OUT/ab3 timeout 200 bash scripts/device-ab.sh old=dist/old/pagedattn new=$N \
  m64=$N@--tile=m64 newd=$N@--plan=device -- --workloads dist/ph3.jsonl > "$OUT/ph3.txt" 2>&1
for p in host device; do
  timeout 80 compute-sanitizer --tool memcheck $N check --backend cuda --plan $p --workloads dist/ph3.jsonl > "$OUT/memcheck-ph3-$p.txt" 2>&1
  echo "memcheck $p rc=$? $(grep -E 'ERROR SUMMARY' "$OUT/memcheck-ph3-$p.txt" | tail -1)"
done
echo "ph3 done $(( $(date +%s) - t0 ))s"
AB_ROUNDS=2 AB_TIMEOUT=60 OUT=$OUT/aba timeout 200 bash scripts/device-ab.sh auto=$N m64=$N@--tile=m64 \
  m128dv=$N@--tile=m128dv -- --workloads dist/ga.jsonl > "$OUT/ga.txt" 2>&1
echo "ga done $(( $(date +%s) - t0 ))s"
AB_ROUNDS=2 AB_TIMEOUT=60 OUT=$OUT/abb timeout 200 bash scripts/device-ab.sh auto=$N m192=$N@--tile=m192 \
  m128d=$N@--tile=m128d m128dv=$N@--tile=m128dv -- --workloads dist/gb.jsonl > "$OUT/gb.txt" 2>&1
echo "gb done $(( $(date +%s) - t0 ))s"
grep -hE "rc=" "$OUT/ph3.txt" "$OUT/ga.txt" "$OUT/gb.txt" | grep -v "rc=0"
grep -E "^\| " "$OUT/ph3.txt" | cut -c1-110 > "$OUT/ph3-table.txt"
TESTS_TIMEOUT=150 REL_TIMEOUT=90 SANITIZERS="memcheck racecheck synccheck initcheck" SAN_TIMEOUT=45 \
  timeout 330 bash scripts/device-run.sh tests reliability sanitize-plans > "$OUT/checks.txt" 2>&1
echo "checks rc=$? $(( $(date +%s) - t0 ))s"; sed -n '/^=== summary/,$p' "$OUT/checks.txt"
cat "$OUT/ph3-table.txt"
echo "total $(( $(date +%s) - t0 ))s"
