#!/usr/bin/env bash
# Call 1 (fortieth session): on d3e3c16's build (dist/): the GPU tests (16,
# the tail-merge test's first run), reliability and the four sanitizers on
# both plans; m64's forced chunk sizes on the split draw again
# (h200-v42-session/split-draws.py: dist/sw.jsonl), now that the tail
# warpgroups merge by fragments; forced configurations on calls shaped like
# wide_prefix3 (mix-draws.py: dist/mix.jsonl, plus wide_prefix3 itself),
# and FlashInfer on those; every output in one tar.
# Carry ["dist", ".peers"], dist's binaries compressed.
set -u
cd "$(dirname "$0")/../.."
bash scripts/device-unpack.sh
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
N=dist/pagedattn
W=/tmp/c1; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader > "$W/gpu.txt"; cat "$W/gpu.txt"
TESTS_TIMEOUT=150 REL_TIMEOUT=90 SANITIZERS="memcheck racecheck synccheck initcheck" SAN_TIMEOUT=45 OUT=$W \
  bash scripts/device-run.sh tests reliability sanitize-plans > "$W/checks.txt" 2>&1
echo "checks $(( $(date +%s) - t0 ))s"; sed -n '/^=== summary/,$p' "$W/checks.txt"
AB_ROUNDS=2 AB_TIMEOUT=60 OUT=$W/sw timeout 150 bash scripts/device-ab.sh auto=$N m64=$N@--tile=m64 \
  s1=$N@--tile=m64,--split=1 s2=$N@--tile=m64,--split=2 s3=$N@--tile=m64,--split=3 \
  s4=$N@--tile=m64,--split=4 s6=$N@--tile=m64,--split=6 -- --workloads dist/sw.jsonl > "$W/sw.txt" 2>&1
echo "sw rc=$? $(( $(date +%s) - t0 ))s"
python3 scripts/make-shapes-workloads.py --wide dist/wide.jsonl > /dev/null
grep '"wide_prefix3"' dist/wide.jsonl >> dist/mix.jsonl
AB_ROUNDS=2 AB_TIMEOUT=60 OUT=$W/mx timeout 150 bash scripts/device-ab.sh auto=$N m64=$N@--tile=m64 \
  m64s1=$N@--tile=m64,--split=1 m64s2=$N@--tile=m64,--split=2 m64s4=$N@--tile=m64,--split=4 m64n=$N@--tile=m64,--split=never \
  dv=$N@--tile=m128dv dvs1=$N@--tile=m128dv,--split=1 dvs2=$N@--tile=m128dv,--split=2 dvn=$N@--tile=m128dv,--split=never \
  -- --workloads dist/mix.jsonl > "$W/mx.txt" 2>&1
echo "mx rc=$? $(( $(date +%s) - t0 ))s"
extra=(); if [ -f .peers/flashinfer/pkgs/aot_so.tar.xz ]; then extra=(--no-prebuild); export FLASHINFER_DISABLE_JIT=1; fi
OUT="$W/peer" timeout 110 bash .peers/flashinfer/device_run.sh --workloads mix=dist/mix.jsonl --backends fa2,fa3 \
  --deadline-s 80 --target-ms 40 "${extra[@]}" > "$W/peer.log" 2>&1
echo "peer rc=$? $(( $(date +%s) - t0 ))s"; tail -2 "$W/peer.log"
tar czf "$OUT/call1.tgz" -C /tmp c1
grep -E "rc=" "$W/sw.txt" "$W/mx.txt" | grep -v "rc=0"; grep -E "^geomean" "$W/sw.txt" "$W/mx.txt" | cut -c1-200
