#!/usr/bin/env bash
# Call 2 (fortieth session), one call for lack of device time: B (dist/,
# the working tree: m64 for 2-5 decode-like sequences of 11+ queries
# wherever its split cuts a tile at any mean keys up to 2048, and the short
# fine split, host and kernel): the GPU tests, reliability and the four
# sanitizers on both plans; main's build (dist/old, d3e3c16) against A
# (the tile rule alone, host plan only: dist/A) and B, two rounds, on seed,
# wide, the four short-decode draws, the split draw (dist/sw.jsonl), the
# mix draw (dist/mix.jsonl, with wide_prefix3) and the fresh draw
# (val-draws.py: dist/val.jsonl), then old against B under the device plan
# on the three draws; FlashInfer on the fresh draw; memcheck and racecheck
# on calls B moves. Every output in one tar.
# As ordered: the A/B first, then the checks.
# Carry ["dist", ".peers"], dist's binaries compressed.
set -u
cd "$(dirname "$0")/../.."
bash scripts/device-unpack.sh
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
N=dist/pagedattn
W=/tmp/c2; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader > "$W/gpu.txt"; cat "$W/gpu.txt"
fin() { tar czf "$OUT/call2.tgz" -C /tmp c2; }
python3 scripts/make-shapes-workloads.py --wide dist/wide.jsonl > /dev/null
D3=(--workloads dist/sw.jsonl --workloads dist/mix.jsonl --workloads dist/val.jsonl)
WL=(--workloads dist/seed.jsonl --workloads dist/wide.jsonl "${D3[@]}")
for m in short-decode short-decode-holdout short-decode-holdout2 short-decode-holdout3; do
  python3 scripts/make-sweep-workloads.py --$m dist/$m.jsonl > /dev/null; WL+=(--workloads dist/$m.jsonl)
done
AB_ROUNDS=2 AB_TIMEOUT=60 OUT=$W/ab timeout 200 bash scripts/device-ab.sh old=dist/old/pagedattn A=dist/A/pagedattn B=$N -- "${WL[@]}" > "$W/ab.txt" 2>&1
echo "ab rc=$? $(( $(date +%s) - t0 ))s"; fin
TESTS_TIMEOUT=150 REL_TIMEOUT=90 SANITIZERS="memcheck racecheck synccheck initcheck" SAN_TIMEOUT=45 OUT=$W \
  bash scripts/device-run.sh tests reliability sanitize-plans > "$W/checks.txt" 2>&1
echo "checks $(( $(date +%s) - t0 ))s"; sed -n '/^=== summary/,$p' "$W/checks.txt"; fin
AB_ROUNDS=2 AB_TIMEOUT=30 OUT=$W/dev timeout 80 bash scripts/device-ab.sh old=dist/old/pagedattn@--plan=device B=$N@--plan=device -- "${D3[@]}" > "$W/dev.txt" 2>&1
echo "dev rc=$? $(( $(date +%s) - t0 ))s"; fin
F=(--filter vG2_ --filter vG38_ --filter vI11_ --filter vI26_ --filter vH29_ --filter mx37_ --filter mx6_ --filter vA3_)
for tool in memcheck racecheck; do
  timeout 30 compute-sanitizer --tool $tool --error-exitcode 9 $N check --backend cuda --plan host "${D3[@]}" "${F[@]}" > "$W/$tool.txt" 2>&1
  echo "$tool rc=$? $(grep -E 'SUMMARY' "$W/$tool.txt" | tail -1)"
done
fin
extra=(); if [ -f .peers/flashinfer/pkgs/aot_so.tar.xz ]; then extra=(--no-prebuild); export FLASHINFER_DISABLE_JIT=1; fi
left=$(( 585 - ($(date +%s) - t0) ))
OUT="$W/peer" timeout $left bash .peers/flashinfer/device_run.sh --workloads val=dist/val.jsonl --backends fa2,fa3 \
  --deadline-s $(( left - 20 )) --target-ms 40 "${extra[@]}" > "$W/peer.log" 2>&1
echo "peer rc=$? $(( $(date +%s) - t0 ))s"; tail -1 "$W/peer.log"
fin
grep -E "rc=" "$W/ab.txt" "$W/dev.txt" | grep -v "rc=0"; grep -E "^geomean" "$W/ab.txt" "$W/dev.txt" | cut -c1-200
