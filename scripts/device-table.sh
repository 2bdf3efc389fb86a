#!/usr/bin/env bash
# The table call on the GPU machine (carry ["dist", ".peers"]; about 7
# minutes, 10 with the checks): ours in rounds on seed, scale, shapes,
# prefix and serving, FlashInfer 0.7.2.post1 fa2/fa3 (kernel-only graph time) on seed,
# scale, shapes and serving after round 1, the dense anchor (PyTorch SDPA, cuDNN,
# no paging) on the long rows after round 2, a third round if time is left.
# Outputs in $OUT: ab-rN.txt, json.tgz (j/rN-ab-ours.json,
# flashinfer-peer.json, dense_anchor.json: what
# bench-results/h200-v17-session/mktable.py joins), logs.tgz.
#   bash scripts/device-table.sh             # the table
#   TABLE_CHECKS=1 bash scripts/device-table.sh   # GPU tests, reliability and
#                                            # the four sanitizers on both plans first (checks.txt)
#   TABLE_WIDE=1 bash scripts/device-table.sh    # and the wide and short-decode draws
# For less device time: TABLE_PEER_S (FlashInfer's deadline, default 235 s;
# its timeout 25 s more), TABLE_DENSE_S (the dense anchor's timeout, 80 s),
# TABLE_R3_BEFORE_S (a third round only if this much has not passed, 500 s).
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=${DIST:-dist}
# A table without FlashInfer is not a table: stop before any timing when the
# peer's packages did not travel (docs/peer-flashinfer-H200.md: make_pkgs.sh).
if ! ls .peers/flashinfer/pkgs/*.whl .peers/flashinfer/pkgs/flashinfer_trim.tar.xz > /dev/null 2>&1; then
  echo "device-table: .peers/flashinfer/pkgs has no wheels; run bash .peers/flashinfer/make_pkgs.sh here and carry .peers" >&2
  exit 2
fi
t0=$(date +%s)
if [ "${TABLE_CHECKS:-0}" = 1 ]; then
  TESTS_TIMEOUT=150 REL_TIMEOUT=90 SANITIZERS="memcheck racecheck synccheck initcheck" SAN_TIMEOUT=45 \
    bash scripts/device-run.sh tests reliability sanitize-plans > "$OUT/checks.txt" 2>&1
  echo "checks $(( $(date +%s) - t0 ))s"; sed -n '/^=== summary/,$p' "$OUT/checks.txt"
fi
W=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/shapes.jsonl --workloads $D/prefix.jsonl)
# The serving set (scripts/dist.sh generates it) beside FlashInfer too.
PW=(); if [ -f $D/serving.jsonl ]; then W+=(--workloads $D/serving.jsonl); PW=(serving=$D/serving.jsonl); fi
# TABLE_WIDE=1: also the wide draw and the four short-decode draws, made
# here (calls no rule was fitted on, and those the one-wave split was), both
# for ours and FlashInfer (about a minute more of each).
if [ "${TABLE_WIDE:-0}" = 1 ]; then
  python3 scripts/make-shapes-workloads.py --wide $D/wide.jsonl > /dev/null
  W+=(--workloads $D/wide.jsonl); PW+=(wide=$D/wide.jsonl)
  for m in short-decode short-decode-holdout short-decode-holdout2 short-decode-holdout3; do
    python3 scripts/make-sweep-workloads.py --$m $D/$m.jsonl > /dev/null
    W+=(--workloads $D/$m.jsonl); PW+=($m=$D/$m.jsonl)
  done
fi
round() {  # round name, timeout
  AB_TIMEOUT=$2 OUT=$OUT/$1 bash scripts/device-ab.sh ours=$D/pagedattn -- "${W[@]}" > "$OUT/ab-$1.txt" 2>&1
  echo "ours $1 $(( $(date +%s) - t0 ))s"
}
round r1 150
extra=(); if [ -f .peers/flashinfer/pkgs/aot_so.tar.xz ]; then extra=(--no-prebuild); export FLASHINFER_DISABLE_JIT=1; fi
peer_s=${TABLE_PEER_S:-235}
OUT="$OUT/peer" timeout $((peer_s + 25)) bash .peers/flashinfer/device_run.sh --workloads seed=$D/seed.jsonl scale=$D/scale.jsonl \
  shapes=$D/shapes.jsonl "${PW[@]}" --backends fa2,fa3 --deadline-s $peer_s --target-ms 40 "${extra[@]}" > "$OUT/peer.log" 2>&1
echo "peer rc=$? $(( $(date +%s) - t0 ))s"; tail -2 "$OUT/peer.log"
round r2 120
OUT=$OUT/dense timeout ${TABLE_DENSE_S:-80} python3 bench/python/dense_anchor.py > "$OUT/dense.log" 2>&1
echo "dense rc=$? $(( $(date +%s) - t0 ))s"; grep -E "^\|" "$OUT/dense.log" | head -12
rs="r1 r2"
if [ $(( $(date +%s) - t0 )) -lt ${TABLE_R3_BEFORE_S:-500} ]; then round r3 80; rs="r1 r2 r3"; fi
cd "$OUT" && mkdir -p j && for r in $rs; do for f in $r/ab-*.json; do cp $f j/$r-$(basename $f); done; done
cp peer/results.json j/flashinfer-peer.json 2>/dev/null; cp dense/dense_anchor.json j/ 2>/dev/null
tar czf logs.tgz --exclude=logs.tgz --exclude=j --exclude=checks.txt * && tar czf json.tgz j && rm -rf r1 r2 r3 peer dense j *.log
grep -E "seed0[0-2]|seed07|seed11|seed18|scale_single|batch" ab-r2.txt | head -20
echo "total $(( $(date +%s) - t0 ))s"
