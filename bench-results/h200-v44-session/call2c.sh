#!/usr/bin/env bash
# Call 2c (forty-first session): call 2's A/B again (its first run stopped
# at once: wide_prefix3 was in both dist/mix.jsonl and dist/wide.jsonl, so
# mix.jsonl now leaves it out): main's build (dist/old) against A (the tile
# rule alone) and B (dist/, both changes), host plan, two rounds, on seed,
# wide, the four short-decode draws, the split, mix and fresh draws; then
# the table (call3.sh) if time is left. One tar. Carry ["dist", ".peers"].
set -u
cd "$(dirname "$0")/../.."
bash scripts/device-unpack.sh
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
W=/tmp/c2c; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader > "$W/gpu.txt"; cat "$W/gpu.txt"
python3 scripts/make-shapes-workloads.py --wide dist/wide.jsonl > /dev/null
WL=(--workloads dist/seed.jsonl --workloads dist/wide.jsonl --workloads dist/sw.jsonl --workloads dist/mix.jsonl --workloads dist/val.jsonl)
for m in short-decode short-decode-holdout short-decode-holdout2 short-decode-holdout3; do
  python3 scripts/make-sweep-workloads.py --$m dist/$m.jsonl > /dev/null; WL+=(--workloads dist/$m.jsonl)
done
AB_ROUNDS=2 AB_TIMEOUT=60 OUT=$W/ab timeout 200 bash scripts/device-ab.sh old=dist/old/pagedattn A=dist/A/pagedattn B=dist/pagedattn -- "${WL[@]}" > "$W/ab.txt" 2>&1
echo "ab rc=$? $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$W/ab.txt" | grep -v "rc=0"; grep -E "^geomean" "$W/ab.txt" | cut -c1-200
tar czf "$OUT/call2c.tgz" -C /tmp c2c
