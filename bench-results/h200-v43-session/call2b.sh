#!/usr/bin/env bash
# Call 2b (fortieth session): call 2 cut to what little device time was
# left: main's build (dist/old, d3e3c16) against B (dist/, the working
# tree), host plan, two rounds, on seed, the short-decode draw, the split,
# mix and fresh draws; then the GPU tests if time is left. One tar.
# Carry ["dist"], dist's binaries compressed.
set -u
cd "$(dirname "$0")/../.."
bash scripts/device-unpack.sh
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
N=dist/pagedattn
W=/tmp/c2; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader > "$W/gpu.txt"; cat "$W/gpu.txt"
fin() { tar czf "$OUT/call2.tgz" -C /tmp c2; }
python3 scripts/make-sweep-workloads.py --short-decode dist/short-decode.jsonl > /dev/null
WL=(--workloads dist/seed.jsonl --workloads dist/short-decode.jsonl --workloads dist/sw.jsonl --workloads dist/mix.jsonl --workloads dist/val.jsonl)
AB_ROUNDS=2 AB_TIMEOUT=40 OUT=$W/ab timeout 110 bash scripts/device-ab.sh old=dist/old/pagedattn B=$N -- "${WL[@]}" > "$W/ab.txt" 2>&1
echo "ab rc=$? $(( $(date +%s) - t0 ))s"; fin
grep -E "^geomean" "$W/ab.txt" | cut -c1-200
TESTS_TIMEOUT=150 OUT=$W timeout 160 bash scripts/device-run.sh tests > "$W/checks.txt" 2>&1
echo "tests $(( $(date +%s) - t0 ))s"; sed -n '/^=== summary/,$p' "$W/checks.txt"; fin
