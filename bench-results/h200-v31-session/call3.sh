#!/usr/bin/env bash
# Call 3: the spread merge's pieces. sp16 (quarter rows, 16 bytes a lane),
# spg (pieces of a whole row for at most 8 chunks, half a row for 16, a
# quarter for 64; the data's copies in flight with the lse loads), spg2
# (spg, and the spread merge for every split tile of a one-wave call, 2+
# chunks) against the shipped build on the spread calls of many rows, the
# four short-decode draws and the split set, two rounds. Carry ["dist"].
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files abs 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
P=dist/pagedattn
c=(auto=$P sp16=$P@--attention-cubin=dist/var/sp16.cubin spg=$P@--attention-cubin=dist/var/spg.cubin spg2=$P@--attention-cubin=dist/var/spg2.cubin)
AB_ROUNDS=2 AB_TIMEOUT=150 OUT=$OUT/abs bash scripts/device-ab.sh "${c[@]}" -- --workloads dist/spreadfrag.jsonl --workloads dist/short4.jsonl --workloads dist/split.jsonl > "$OUT/abs.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$OUT/abs.txt" | grep -v "rc=0" | head; grep -E "geomean|output bits" "$OUT/abs.txt" | cut -c1-400; sed -n '/^| workload/,$p' "$OUT/abs.txt" | grep -v "output bits" | cut -c1-120
