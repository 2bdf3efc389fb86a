#!/usr/bin/env bash
# Prepared in the ninth session (as h200-v15-session/next-call2.sh), run as the tenth session's call 2 (inputs from prepare-next.sh; carry
# ["dist"]; about 5 minutes): two rounds of the shipped build, chained,
# chprobe, chearly, chall and chained with --tile m128 (whether chained m128 beats
# m128d where the rule takes m128d), every row checked; the table's last
# line says which columns give the shipped build's bits.
#   prediction: see next-call1.sh; chall also on the rows that split
#   (cached prefixes) by the part of a chunk's end it overlaps.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist; B=$D/pagedattn
t0=$(date +%s)
W=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/shapes.jsonl --workloads $D/prefix.jsonl)
AB_ROUNDS=2 AB_TIMEOUT=120 OUT=$OUT/ab bash scripts/device-ab.sh shipped=$B chained=$B@--attention-cubin=$D/var/chained.cubin \
  chprobe=$B@--attention-cubin=$D/var/chprobe.cubin chearly=$B@--attention-cubin=$D/var/chearly.cubin \
  chall=$B@--attention-cubin=$D/var/chall.cubin \
  cm128=$B@--attention-cubin=$D/var/chained.cubin,--tile=m128 -- "${W[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"
cd "$OUT" && mkdir -p j && cp ab/*.json j/ 2>/dev/null && tar czf json.tgz j && rm -rf ab j
grep -vE "^\s*$" ab.txt | grep -v "rc=0" | head -72
echo "total $(( $(date +%s) - t0 ))s"
