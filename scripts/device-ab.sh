#!/usr/bin/env bash
# Same-call A/B of kernel builds and options on the GPU machine: one
# `pagedattn bench` (checked against the reference, timed per SPEC.md) per
# configuration and round, then one table of median times (scripts/ab.py).
#   bash scripts/device-ab.sh NAME=BINARY[@ARG,ARG...] ... [-- bench args]
# ARGs are extra `pagedattn bench` arguments of that configuration only, e.g.
#   bash scripts/device-ab.sh old=dist/old/pagedattn new=dist/pagedattn \
#        nosplit=dist/pagedattn@--split=never m128=dist/pagedattn@--tile=m128 \
#        var=dist/pagedattn@--attention-cubin=dist/var/var.cubin -- --filter seed
# AB_ROUNDS=N (default 1) runs every configuration N times, the order
# reversed in every other round (a row's time moves with what ran before it
# and, for the shortest calls, by a few % with unrelated code edits), and
# the table shows each configuration's median over its rounds.
# JSON reports land in $OUT/ab-NAME.json (one round) or $OUT/ab-NAME-rR.json;
# the first configuration is the reference column of the ratio.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
rounds=${AB_ROUNDS:-1}
cfgs=(); bench=()
while [ $# -gt 0 ]; do
  if [ "$1" = "--" ]; then shift; bench=("$@"); break; fi
  cfgs+=("$1"); shift
done
declare -A files
for ((r = 1; r <= rounds; r++)); do
  order=("${cfgs[@]}")
  if ((r % 2 == 0)); then order=(); for ((i = ${#cfgs[@]} - 1; i >= 0; i--)); do order+=("${cfgs[i]}"); done; fi
  for c in "${order[@]}"; do
    name=${c%%=*}; rest=${c#*=}; bin=${rest%%@*}; extra=()
    [ "$rest" != "$bin" ] && IFS=, read -ra extra <<< "${rest#*@}"
    tag=$name; ((rounds > 1)) && tag=$name-r$r
    timeout "${AB_TIMEOUT:-300}" "$bin" bench --backend "${AB_BACKEND:-cuda}" "${extra[@]}" "${bench[@]}" \
      --json "$OUT/ab-$tag.json" > "$OUT/ab-$tag.txt" 2>&1
    rc=$?
    echo "$tag: rc=$rc $(grep -E '^[0-9]+ workloads?:' "$OUT/ab-$tag.txt" || echo 'no summary')"
    [ -f "$OUT/ab-$tag.json" ] && files[$name]+="${files[$name]:+,}$OUT/ab-$tag.json"
  done
done
cols=()
for c in "${cfgs[@]}"; do
  name=${c%%=*}
  [ -n "${files[$name]:-}" ] && cols+=("$name=${files[$name]}")
done
python3 "$(dirname "$0")/ab.py" "${cols[@]}" ${AB_PEER:+--peer "$AB_PEER"}
