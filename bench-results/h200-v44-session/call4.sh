#!/usr/bin/env bash
# Call 4 (forty-first session): C (dist/, the working tree: a host plan
# that splits no tile of a call whose tiles fit the resident CTAs launches
# the direct entry point on a CTA per tile) against B (dist/old: main
# e13b2b8), host plan, two rounds, on seed, shapes, prefix, serving, wide,
# the four short-decode draws and the split, mix and fresh draws; the GPU
# tests and reliability on C; memcheck and racecheck on calls C moves.
# One tar. Carry ["dist"], dist's binaries compressed.
set -u
cd "$(dirname "$0")/../.."
bash scripts/device-unpack.sh
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
N=dist/pagedattn
W=/tmp/c4; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader > "$W/gpu.txt"; cat "$W/gpu.txt"
fin() { tar czf "$OUT/call4.tgz" -C /tmp c4; }
python3 scripts/make-shapes-workloads.py --wide dist/wide.jsonl > /dev/null
python3 scripts/make-shapes-workloads.py --serving dist/serving.jsonl > /dev/null
WL=(--workloads dist/seed.jsonl --workloads dist/shapes.jsonl --workloads dist/prefix.jsonl --workloads dist/serving.jsonl
    --workloads dist/wide.jsonl --workloads dist/sw.jsonl --workloads dist/mix.jsonl --workloads dist/val.jsonl)
for m in short-decode short-decode-holdout short-decode-holdout2 short-decode-holdout3; do
  python3 scripts/make-sweep-workloads.py --$m dist/$m.jsonl > /dev/null; WL+=(--workloads dist/$m.jsonl)
done
AB_ROUNDS=2 AB_TIMEOUT=60 OUT=$W/ab timeout 200 bash scripts/device-ab.sh B=dist/old/pagedattn C=$N -- "${WL[@]}" > "$W/ab.txt" 2>&1
echo "ab rc=$? $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$W/ab.txt" | grep -v "rc=0"; grep -E "^geomean" "$W/ab.txt" | cut -c1-200; fin
TESTS_TIMEOUT=150 REL_TIMEOUT=90 OUT=$W bash scripts/device-run.sh tests reliability > "$W/checks.txt" 2>&1
echo "checks $(( $(date +%s) - t0 ))s"; sed -n '/^=== summary/,$p' "$W/checks.txt"; fin
F=(--filter mx44_ --filter mx22_ --filter mx41_ --filter sdec_b16_q1_kv256 --filter sdec_b32_q8_kv256 --filter sdecho_b8_q15_kv256)
for tool in memcheck racecheck; do
  timeout 40 compute-sanitizer --tool $tool --error-exitcode 9 $N check --backend cuda --plan host --workloads dist/mix.jsonl \
    --workloads dist/short-decode.jsonl --workloads dist/short-decode-holdout.jsonl "${F[@]}" > "$W/$tool.txt" 2>&1
  echo "$tool rc=$? $(grep -E 'SUMMARY' "$W/$tool.txt" | tail -1) $(grep -c ' ok ' "$W/$tool.txt") ok"
done
fin
