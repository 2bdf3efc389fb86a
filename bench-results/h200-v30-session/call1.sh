#!/usr/bin/env bash
# Call 1 (twenty-fourth session): forced splits on the 50 calls of 3-16
# queries a sequence and at most 16 sequences of the four short-decode
# draws (dist/sdfrag.jsonl, made from make-sweep-workloads.py --short-decode*):
# auto, m64 and m128dv with the automatic split, m64 in chunks of 128 / 256 /
# 512 keys (2 / 4 / 8 blocks), m128dv in chunks of 128 / 256 / 512 keys, one
# round each order, two rounds. To fit what a chunk merged by fragments
# costs in a call of one wave. Carry ["dist", ".peers"].
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files abf *.log 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
P=dist/pagedattn
AB_ROUNDS=2 AB_TIMEOUT=60 OUT=$OUT/abf bash scripts/device-ab.sh auto=$P m64a=$P@--tile=m64 m128dva=$P@--tile=m128dv \
  m64s2=$P@--tile=m64,--split=2 m64s4=$P@--tile=m64,--split=4 m64s8=$P@--tile=m64,--split=8 \
  m128dvs1=$P@--tile=m128dv,--split=1 m128dvs2=$P@--tile=m128dv,--split=2 m128dvs4=$P@--tile=m128dv,--split=4 \
  -- --workloads dist/sdfrag.jsonl > "$OUT/abf.txt" 2>&1
echo "forced $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$OUT/abf.txt" | grep -v "rc=0" | head; sed -n '/^| workload/,$p' "$OUT/abf.txt"
mkdir -p "$OUT/j" && for f in "$OUT"/abf/*.json; do [ -f "$f" ] && cp "$f" "$OUT/j/abf-$(basename "$f")"; done
(cd "$OUT" && tar czf json.tgz j && rm -rf j)
