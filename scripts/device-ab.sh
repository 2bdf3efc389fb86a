#!/usr/bin/env bash
# Same-call A/B of kernel builds and options on the GPU machine: one
# `pagedattn bench` (checked against the reference, timed per SPEC.md) per
# configuration, then one table of median times (scripts/ab.py).
#   bash scripts/device-ab.sh NAME=BINARY[@ARG,ARG...] ... [-- bench args]
# ARGs are extra `pagedattn bench` arguments of that configuration only, e.g.
#   bash scripts/device-ab.sh old=dist/old/pagedattn new=dist/pagedattn \
#        nosplit=dist/pagedattn@--split=never m128=dist/pagedattn@--tile=m128 \
#        var=dist/pagedattn@--attention-cubin=dist/var/var.cubin -- --filter seed
# JSON reports land in $OUT/ab-NAME.json; the first configuration is the
# reference column of the ratio.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
cfgs=(); bench=()
while [ $# -gt 0 ]; do
  if [ "$1" = "--" ]; then shift; bench=("$@"); break; fi
  cfgs+=("$1"); shift
done
jsons=()
for c in "${cfgs[@]}"; do
  name=${c%%=*}; rest=${c#*=}; bin=${rest%%@*}; extra=()
  [ "$rest" != "$bin" ] && IFS=, read -ra extra <<< "${rest#*@}"
  timeout "${AB_TIMEOUT:-300}" "$bin" bench --backend cuda "${extra[@]}" "${bench[@]}" \
    --json "$OUT/ab-$name.json" > "$OUT/ab-$name.txt" 2>&1
  rc=$?
  echo "$name: rc=$rc $(grep -c '| ok' "$OUT/ab-$name.txt") ok, $(grep -cE '\| +(FAIL|ERROR)' "$OUT/ab-$name.txt") failed"
  [ -f "$OUT/ab-$name.json" ] && jsons+=("$OUT/ab-$name.json")
done
python3 "$(dirname "$0")/ab.py" "${jsons[@]}" ${AB_PEER:+--peer "$AB_PEER"}
