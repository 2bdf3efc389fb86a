#!/usr/bin/env bash
# Call 3: (1) bench/micro/decode_gather (the decode_b64 K/V stream without
# math: lanes a row x stages x CTAs an SM); (2) m16 ring variants
# (m16-variants.sh) forced on the serving set beside auto (m64 there) and
# m16 as built. Carry ["dist"].
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files ab 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
timeout 120 dist/micro/decode_gather > "$OUT/decode_gather.md" 2>&1; echo "micro rc=$?"
B=dist/pagedattn
AB_ROUNDS=1 AB_TIMEOUT=150 OUT=$OUT/ab bash scripts/device-ab.sh auto=$B m16=$B@--tile=m16 \
  m16s3=$B@--tile=m16,--attention-cubin=dist/var/m16s3.cubin m16s4=$B@--tile=m16,--attention-cubin=dist/var/m16s4.cubin \
  -- --workloads dist/serving.jsonl --workloads dist/shapes.jsonl --filter long_b1 --filter decode --filter spec --filter tiny_b1000 --filter tiny_b128 > "$OUT/ab.txt" 2>&1
grep -E 'rc=' "$OUT/ab.txt"; sed -n '/^| workload/,$p' "$OUT/ab.txt"
cat "$OUT/decode_gather.md"
