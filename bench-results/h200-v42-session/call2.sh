#!/usr/bin/env bash
# Call 2 (thirty-ninth session), as run on call 1's warm machine: the table
# on fa4dcd9's build (with the wide and short-decode draws), then memcheck
# on four calls the one-wave m192 bound moves, under both plans; every
# output in one tar. Carry ["dist", ".peers"].
set -u
cd "$(dirname "$0")/../.."
bash scripts/device-unpack.sh
python3 scripts/make-shapes-workloads.py --serving dist/serving.jsonl > /dev/null
t0=$(date +%s)
TABLE_WIDE=1 TABLE_PEER_S=200 TABLE_R3_BEFORE_S=330 OUT=/tmp/t timeout 420 bash scripts/device-table.sh > /tmp/t-table.txt 2>&1
echo "table rc=$? $(( $(date +%s) - t0 ))s"; tail -4 /tmp/t-table.txt
for p in host device; do
  timeout 50 compute-sanitizer --tool memcheck dist/pagedattn check --backend cuda --plan $p --workloads dist/val.jsonl \
    --filter vD13_ --filter vD34_ --filter vE1_ --filter vD6_ > /tmp/t/memcheck-$p.txt 2>&1
  echo "memcheck $p rc=$? $(grep -E 'ERROR SUMMARY' /tmp/t/memcheck-$p.txt | tail -1)"
done
cp /tmp/t-table.txt /tmp/t/; tar cf "${OUT:-/tmp/out}/table.tar" -C /tmp t
