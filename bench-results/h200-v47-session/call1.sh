#!/usr/bin/env bash
# Call 1b (forty-fourth session): the spread fine split past 128 units.
# base (dist/base: main 4acd480), v1b (dist/: the spread fine split in one
# wave, each chunk 64 keys dearer past 128 units; the walk still stops at
# the first candidate past 128 units), v1 (dist/v1: the walk goes on to
# one wave), host plan, two rounds, on the calls either moves
# (dist/moved.jsonl: mix, fresh, tiny, grids, short-decode, wide and split
# draws) and 12 that neither moves. Then the GPU tests on v1b (its kernel
# mirrors the host rule).
# Carry ["dist"] (binaries and the workload file xz'd).
set -u
cd "$(dirname "$0")/../.."
bash scripts/device-unpack.sh
OUT=${OUT:-/tmp/out}; W=/tmp/c1b; mkdir -p "$W"; t0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader | tee "$W/gpu.txt"
AB_ROUNDS=2 AB_TIMEOUT=60 OUT=$W/ab timeout 300 bash scripts/device-ab.sh base=dist/base/pagedattn \
  v1b=dist/pagedattn v1=dist/v1/pagedattn -- --workloads dist/moved.jsonl > "$W/ab.txt" 2>&1
echo "ab rc=$? $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$W/ab.txt" | grep -v "rc=0"; grep -E "^geomean" "$W/ab.txt" | cut -c1-200
tar czf "$OUT/call1b.tgz" -C /tmp c1b
TESTS_TIMEOUT=150 OUT=$W bash scripts/device-run.sh tests > "$W/checks.txt" 2>&1
echo "tests $(( $(date +%s) - t0 ))s"; sed -n '/^=== summary/,$p' "$W/checks.txt"
tar czf "$OUT/call1b.tgz" -C /tmp c1b
