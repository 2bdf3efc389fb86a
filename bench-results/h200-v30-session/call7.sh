#!/usr/bin/env bash
# Call 7 (twenty-fourth session): data for the next session's first
# candidate (the spread merge of full tiles): the 31 calls of every sweep
# and draw whose automatic plan on m64 or m128dv takes the spread merge
# (one wave, 9+ chunks a tile) with more than 16 rows a tile
# (dist/spreadfrag.jsonl), automatic and with forced chunks of 256-2048
# keys on m128dv and m64, one round. Carry ["dist"].
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files abs 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
P=dist/pagedattn
c=(auto=$P)
for s in 2 3 4 6 8 12 16; do c+=(v$s=$P@--tile=m128dv,--split=$s); done
for s in 4 6 8 12 16 24 32; do c+=(s$s=$P@--tile=m64,--split=$s); done
AB_TIMEOUT=40 OUT=$OUT/abs bash scripts/device-ab.sh "${c[@]}" -- --workloads dist/spreadfrag.jsonl > "$OUT/abs.txt" 2>&1
echo "forced $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$OUT/abs.txt" | grep -v "rc=0" | head; sed -n '/^| workload/,$p' "$OUT/abs.txt" | grep -v "output bits"
mkdir -p "$OUT/j" && for f in "$OUT"/abs/*.json; do [ -f "$f" ] && cp "$f" "$OUT/j/abs-$(basename "$f")"; done
(cd "$OUT" && tar czf json.tgz j && rm -rf j)
