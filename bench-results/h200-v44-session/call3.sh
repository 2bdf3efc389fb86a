#!/usr/bin/env bash
# Call 3 (forty-first session), on call 2's warm machine: the table on the
# working tree's build (dist/, the branch's two changes: m64 for 2-5
# decode-like sequences, the short fine split), with the wide and
# short-decode draws; every output in one tar. Carry ["dist", ".peers"].
set -u
cd "$(dirname "$0")/../.."
bash scripts/device-unpack.sh
python3 scripts/make-shapes-workloads.py --serving dist/serving.jsonl > /dev/null
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
t0=$(date +%s)
TABLE_WIDE=1 TABLE_PEER_S=200 TABLE_R3_BEFORE_S=330 OUT=/tmp/t timeout 450 bash scripts/device-table.sh > /tmp/t-table.txt 2>&1
echo "table rc=$? $(( $(date +%s) - t0 ))s"; tail -4 /tmp/t-table.txt
cp /tmp/t-table.txt /tmp/t/; tar cf "${OUT:-/tmp/out}/table.tar" -C /tmp t
