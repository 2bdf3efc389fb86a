#!/usr/bin/env bash
# Call 2 as prepared (thirty-eighth session; call 1 was
# h200-v40-session/call1.sh): call2v.sh (the refits against 518bf38 on the
# fresh draw, memcheck), then the table on the new build. What ran was
# call2v.sh alone: the device time left after the refused starts did not
# hold the table. Carry ["dist", ".peers"], dist's binaries compressed.
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
OUT=$OUT bash bench-results/h200-v41-session/call2v.sh
python3 scripts/make-shapes-workloads.py --serving dist/serving.jsonl > /dev/null
TABLE_WIDE=1 TABLE_PEER_S=200 TABLE_R3_BEFORE_S=400 OUT=$OUT/table timeout 480 bash scripts/device-table.sh > "$OUT/table.txt" 2>&1
echo "table rc=$? $(( $(date +%s) - t0 ))s"; tail -5 "$OUT/table.txt"
