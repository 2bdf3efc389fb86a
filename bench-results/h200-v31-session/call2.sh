#!/usr/bin/env bash
# Call 2: the spread merge copying 16 bytes a lane (sp16) and nosplitsync
# against the shipped build on the spread calls of many rows and the four
# short-decode draws, one round. Carry ["dist"].
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files abs 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
P=dist/pagedattn
c=(auto=$P sp16=$P@--attention-cubin=dist/var/sp16.cubin nosync=$P@--attention-cubin=dist/var/nosplitsync.cubin,--no-check nomerge=$P@--attention-cubin=dist/var/nomerge.cubin,--no-check)
AB_ROUNDS=2 AB_TIMEOUT=120 OUT=$OUT/abs bash scripts/device-ab.sh "${c[@]}" -- --workloads dist/spreadfrag.jsonl --workloads dist/short4.jsonl > "$OUT/abs.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$OUT/abs.txt" | grep -v "rc=0" | head; sed -n '/^| workload/,$p' "$OUT/abs.txt" | grep -v "output bits" | cut -c1-120
