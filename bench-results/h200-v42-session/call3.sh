#!/usr/bin/env bash
# Call 3 (thirty-ninth session): m64's forced chunk sizes (--split 1-6
# key blocks of 64) beside auto and m64's automatic split on the
# decode-like calls of split-draws.py (dist/sw.jsonl), two rounds; the
# outputs in one tar (the device returns only a few files).
# Carry ["dist"], dist's binary compressed.
set -u
cd "$(dirname "$0")/../.."
bash scripts/device-unpack.sh
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
N=dist/pagedattn
W=/tmp/c3; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader > "$W/gpu.txt"; cat "$W/gpu.txt"
AB_ROUNDS=2 AB_TIMEOUT=90 OUT=$W/ab timeout 480 bash scripts/device-ab.sh auto=$N m64=$N@--tile=m64 \
  s1=$N@--tile=m64,--split=1 s2=$N@--tile=m64,--split=2 s3=$N@--tile=m64,--split=3 \
  s4=$N@--tile=m64,--split=4 s6=$N@--tile=m64,--split=6 -- --workloads dist/sw.jsonl > "$W/sw.txt" 2>&1
echo "sw rc=$? $(( $(date +%s) - t0 ))s"
tar czf "$OUT/call3.tgz" -C /tmp c3
grep -E "rc=" "$W/sw.txt" | grep -v "rc=0"; grep -E "^\| " "$W/sw.txt" | cut -c1-100 | head -130
