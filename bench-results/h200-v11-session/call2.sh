#!/usr/bin/env bash
# Device call 2 (fifth session): are split tiles held back by the merge slots?
# The workspace holds 2 merge slots per resident CTA (264 for m128), and the
# plan doubles the split size until the split units fit, so forced splits of
# 4, 8 and 16 blocks gave the same times on cached prefixes (fourth session,
# call 5). dist/wide/pagedattn is HEAD (fca3978) with 6 slots per CTA.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
t0=$(date +%s)
P=(--workloads $D/prefix.jsonl --workloads $D/shapes.jsonl --filter prefix)
AB_TIMEOUT=100 OUT=$OUT/p bash scripts/device-ab.sh base=$D/pagedattn wide=$D/wide/pagedattn \
  w4=$D/wide/pagedattn@--split=4 w8=$D/wide/pagedattn@--split=8 w16=$D/wide/pagedattn@--split=16 \
  b8=$D/pagedattn@--split=8 -- "${P[@]}" > "$OUT/ab-prefix.txt" 2>&1
cat "$OUT/ab-prefix.txt"; echo "prefix done $(( $(date +%s) - t0 ))s"
S=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl)
for f in seed07 seed08 seed10 seed11 seed13 seed15 seed19 single_1024 single_2048 single_4096 batch16x2048; do S+=(--filter $f); done
AB_TIMEOUT=100 OUT=$OUT/s bash scripts/device-ab.sh base=$D/pagedattn wide=$D/wide/pagedattn \
  w2=$D/wide/pagedattn@--split=2 w3=$D/wide/pagedattn@--split=3 w4=$D/wide/pagedattn@--split=4 w6=$D/wide/pagedattn@--split=6 \
  -- "${S[@]}" > "$OUT/ab-seed.txt" 2>&1
cat "$OUT/ab-seed.txt"; echo "seed done $(( $(date +%s) - t0 ))s"
cd "$OUT" && mkdir -p j && cp p/ab-*.json j/ 2>/dev/null; for f in s/ab-*.json; do cp $f j/seed-$(basename $f); done
tar czf logs.tgz --exclude=logs.tgz --exclude=j * && tar czf json.tgz j && rm -rf p s j
ls; echo "total $(( $(date +%s) - t0 ))s"
