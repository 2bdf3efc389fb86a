#!/usr/bin/env bash
# Same-call A/B of kernel builds and options on the GPU machine: one
# `pagedattn bench` (checked against the reference, timed per SPEC.md) per
# configuration, then one table of median times (scripts/ab.py).
#   bash scripts/device-ab.sh NAME=BINARY[@ENV=VAL,ENV=VAL...] ... [-- bench args]
# e.g.
#   bash scripts/device-ab.sh old=dist/old/pagedattn new=dist/pagedattn \
#        nosplit=dist/pagedattn@PAGEDATTN_SPLIT=never \
#        f1=dist/pagedattn@PAGEDATTN_ATTENTION_CUBIN=dist/var/f1.cubin -- --filter seed
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
  name=${c%%=*}; rest=${c#*=}; bin=${rest%%@*}; envs=()
  [ "$rest" != "$bin" ] && IFS=, read -ra envs <<< "${rest#*@}"
  env "${envs[@]}" timeout "${AB_TIMEOUT:-300}" "$bin" bench --backend cuda "${bench[@]}" \
    --json "$OUT/ab-$name.json" > "$OUT/ab-$name.txt" 2>&1
  rc=$?
  echo "$name: rc=$rc $(grep -c '| ok' "$OUT/ab-$name.txt") ok, $(grep -cE '\| +(FAIL|ERROR)' "$OUT/ab-$name.txt") failed"
  [ -f "$OUT/ab-$name.json" ] && jsons+=("$OUT/ab-$name.json")
done
python3 "$(dirname "$0")/ab.py" "${jsons[@]}" ${AB_PEER:+--peer "$AB_PEER"}
