#!/usr/bin/env bash
# Fifteenth session, call 6 (carry ["dist"]; dist/var/m64p16.cubin from
# m64p16-variant.patch, m64v as in call 2; about 2 minutes).
# Call 2: m64v was 2-3% faster on seed09 (19 sequences) and seed12 (45),
# rows its 16-sequence plan cannot hold, so they ran in the fallback order
# (tiles in the fixed numbering, the last first, never split) instead of
# the plan's. m64p16 is that plan limit alone (V ring of 2, as shipped).
# Prediction: if the order is what helped, m64p16 matches m64v on seed09
# and seed12 (0.97-0.98 of shipped); seed17/18 and the tiny rows move with
# it either way (they lost 5-8% with m64v: the plan's order pays there).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
F=(--filter seed09 --filter seed12 --filter seed16 --filter seed17 --filter seed18 --filter tiny_ --filter empty_and)
AB_ROUNDS=3 AB_TIMEOUT=60 OUT=$OUT/ab bash scripts/device-ab.sh shipped=$D/pagedattn \
  m64p16=$D/pagedattn@--attention-cubin=$D/var/m64p16.cubin m64v=$D/pagedattn@--attention-cubin=$D/var/m64v.cubin \
  -- --workloads $D/seed.jsonl --workloads $D/shapes.jsonl "${F[@]}" > "$OUT/ab.txt" 2>&1
grep -vE "^\s*$" "$OUT/ab.txt" | grep -v "rc=0"
