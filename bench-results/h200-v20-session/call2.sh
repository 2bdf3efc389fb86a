#!/usr/bin/env bash
# Fourteenth session, call 2 (carry ["dist", ".peers"]; dist/ at the
# commit after 9c07ecc whose TileConfig::choose gives every call of up to 64
# sequences of the 128-row class m128dv unless its tiles see 3072 keys or
# more (or one sequence's fewer than 512): m128 only above 64 sequences;
# dist/v1/pagedattn is call 1's build).
# 1. Two rounds, v1 against new on seed, scale, shapes, prefix.
#    Prediction (call 1 forced m128dv on the seed rows): seed13 ~4% and
#    seed19 ~3.5% faster, seed10 equal; scale_batch64x512 and
#    b16x512_pages_repeated (m128 before, never timed on m128dv) equal or
#    faster, as the only difference from m128 is V's third stage; every
#    other row unchanged; bits equal.
# 2. The table (scripts/device-table.sh, without its checks: the kernel is
#    call 1's, checked there; the change is host-side).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
t0=$(date +%s)
W=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/shapes.jsonl --workloads $D/prefix.jsonl)
AB_ROUNDS=2 AB_TIMEOUT=100 OUT=$OUT/ab bash scripts/device-ab.sh v1=$D/v1/pagedattn new=$D/pagedattn \
  -- "${W[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"
(cd "$OUT" && mkdir -p jab && cp ab/*.json jab/ && tar czf ab-json.tgz jab && rm -rf ab jab)
OUT=$OUT/table bash scripts/device-table.sh
grep -vE "^\s*$" "$OUT/ab.txt" | grep -v "rc=0" | head -62
echo "total $(( $(date +%s) - t0 ))s"
