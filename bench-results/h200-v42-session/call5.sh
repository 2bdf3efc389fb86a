#!/usr/bin/env bash
# Call 5 (thirty-ninth session), as run on call 4's warm machine: the A/B
# that call 4's checks left no time for. The tail warpgroup's merge
# (dist/pagedattn, 5d6727b's kernel) against the build before it
# (dist/old/pagedattn) on the split draw, seed, shapes and wide, two
# rounds. Carry ["dist"].
set -u
cd "$(dirname "$0")/../.."
bash scripts/device-unpack.sh > /dev/null
python3 scripts/make-shapes-workloads.py --wide dist/wide.jsonl > /dev/null
mkdir -p /tmp/c5
AB_ROUNDS=2 AB_TIMEOUT=60 OUT=/tmp/c5/ab timeout 170 bash scripts/device-ab.sh old=dist/old/pagedattn new=dist/pagedattn -- \
  --workloads dist/sw.jsonl --workloads dist/seed.jsonl --workloads dist/shapes.jsonl --workloads dist/wide.jsonl > /tmp/c5/ab.txt 2>&1
echo "ab rc=$?"; tar czf "${OUT:-/tmp/out}/call5.tgz" -C /tmp c5
grep -E "rc=|^geomean|^output" /tmp/c5/ab.txt | cut -c1-250
