#!/usr/bin/env bash
# Call 4: (1) decode_gather with the 8-lanes map added; (2) g8 (m64 and m16
# gathering 8 lanes a row, g8-variant.sh) against the tree's 4 lanes on the
# serving, shapes and seed sets (auto: m64 where the call takes it), and m16
# forced with 8 lanes on the decode rows. Carry ["dist"].
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files ab ab2 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
timeout 150 dist/micro/decode_gather > "$OUT/decode_gather.md" 2>&1; echo "micro rc=$?"
B=dist/pagedattn; G=--attention-cubin=dist/var/g8.cubin
AB_ROUNDS=2 AB_TIMEOUT=150 OUT=$OUT/ab bash scripts/device-ab.sh base=$B g8=$B@$G \
  -- --workloads dist/serving.jsonl --workloads dist/shapes.jsonl --workloads dist/seed.jsonl > "$OUT/ab.txt" 2>&1
AB_ROUNDS=1 AB_TIMEOUT=150 OUT=$OUT/ab2 bash scripts/device-ab.sh g8=$B@$G m16g8=$B@--tile=m16,$G m16=$B@--tile=m16 \
  -- --workloads dist/serving.jsonl --workloads dist/shapes.jsonl --filter long_b1 --filter decode --filter spec --filter tiny_b1000 --filter tiny_b128 > "$OUT/ab2.txt" 2>&1
grep -E 'rc=' "$OUT/ab.txt" "$OUT/ab2.txt"; sed -n '/^| workload/,$p' "$OUT/ab.txt"; sed -n '/^| workload/,$p' "$OUT/ab2.txt"
cat "$OUT/decode_gather.md"
