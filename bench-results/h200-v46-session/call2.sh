#!/usr/bin/env bash
# Call 2 (forty-third session), on call 1's warm machine: the table (ours
# in rounds beside FlashInfer fa2/fa3 and the dense anchor, with the wide
# and short-decode draws), on dist/ (main with direct-host.patch) if call 1
# keeps it, else on dist/old (main): `DIST=dist/old bash call2.sh`. Every
# output in one tar. Carry ["dist", ".peers"] as prep-call1.sh left them.
# Join: python3 bench-results/h200-v17-session/mktable.py DIR.
set -u
cd "$(dirname "$0")/../.."
export DIST=${DIST:-dist}
bash scripts/device-unpack.sh
python3 scripts/make-shapes-workloads.py --serving "$DIST/serving.jsonl" > /dev/null
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
t0=$(date +%s)
TABLE_WIDE=1 TABLE_PEER_S=200 TABLE_R3_BEFORE_S=330 OUT=/tmp/t timeout 450 bash scripts/device-table.sh > /tmp/t-table.txt 2>&1
echo "table rc=$? $(( $(date +%s) - t0 ))s"; tail -4 /tmp/t-table.txt
cp /tmp/t-table.txt /tmp/t/; tar cf "${OUT:-/tmp/out}/table.tar" -C /tmp t
