#!/usr/bin/env bash
# Call 4 (thirty-ninth session): the tail warpgroup's merge by fragments
# (SplitMerge::by_rows, dist/: GPU tests, reliability, the four sanitizers
# on both plans, memcheck and racecheck on the split draw) and its A/B
# against the build before it (dist/old/pagedattn) on seed, shapes, the
# split draw (split-draws.py: dist/sw.jsonl) and the wide draw (C4_WIDE=1:
# also prefix, the thirty-eighth session's draw and the short-decode
# draws), two rounds, within C4_S seconds (570); every output in one tar.
# Carry ["dist"], dist's binaries compressed. As run: C4_S=300 (the device
# time left); the checks took 222 s and the A/B then timed out: call5.sh ran it.
set -u
cd "$(dirname "$0")/../.."
bash scripts/device-unpack.sh
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
W=/tmp/c4; mkdir -p $W
N=dist/pagedattn
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader > "$W/gpu.txt"; cat "$W/gpu.txt"
TESTS_TIMEOUT=150 REL_TIMEOUT=90 SANITIZERS="memcheck racecheck synccheck initcheck" SAN_TIMEOUT=45 OUT=$W \
  bash scripts/device-run.sh tests reliability sanitize-plans > "$W/checks.txt" 2>&1
echo "checks $(( $(date +%s) - t0 ))s"; sed -n '/^=== summary/,$p' "$W/checks.txt"
F=(--filter gdec_b3_q13 --filter vA16_ --filter vA1_ --filter vF12_ --filter vA26_)
for p in host device; do
  for tool in memcheck racecheck; do
    timeout 40 compute-sanitizer --tool $tool --error-exitcode 9 $N check --backend cuda --plan $p --workloads dist/sw.jsonl "${F[@]}" > "$W/$tool-sw-$p.txt" 2>&1
    echo "$tool sw $p rc=$? $(grep -E 'SUMMARY' "$W/$tool-sw-$p.txt" | tail -1)"
  done
done
python3 scripts/make-shapes-workloads.py --wide dist/wide.jsonl > /dev/null
WL=(--workloads dist/seed.jsonl --workloads dist/shapes.jsonl --workloads dist/sw.jsonl --workloads dist/wide.jsonl)
if [ "${C4_WIDE:-0}" = 1 ]; then
  WL+=(--workloads dist/prefix.jsonl --workloads dist/val41.jsonl)
  for m in short-decode short-decode-holdout short-decode-holdout2 short-decode-holdout3; do
    python3 scripts/make-sweep-workloads.py --$m dist/$m.jsonl > /dev/null; WL+=(--workloads dist/$m.jsonl)
  done
fi
left=$(( ${C4_S:-570} - ($(date +%s) - t0) ))
AB_ROUNDS=2 AB_TIMEOUT=$(( left / 4 )) OUT=$W/ab timeout $left bash scripts/device-ab.sh old=dist/old/pagedattn new=$N -- "${WL[@]}" > "$W/ab.txt" 2>&1
echo "ab rc=$? $(( $(date +%s) - t0 ))s"
tar czf "$OUT/call4.tgz" -C /tmp c4
grep -E "rc=" "$W/ab.txt" | grep -v "rc=0"; grep -E "^geomean|^output" "$W/ab.txt" | cut -c1-300
awk -F'|' '/^\| / && $4+0 > 0 {r=$4/$3; if (r < 0.97 || r > 1.03) print $2, $3, $4}' "$W/ab.txt" | head -70
