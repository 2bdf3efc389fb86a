#!/usr/bin/env bash
# Call 5 (forty-first session): call 4 again after its fix. C (dist/, the
# working tree: a host plan that splits no tile of a call whose tiles fit
# the resident CTAs launches direct; call 4's build also dropped the plan
# image of calls whose tiles overflow the resident CTAs, fixed here)
# against B (dist/old: main e13b2b8), host plan, two rounds, on seed, wide,
# the four short-decode draws, the mix and fresh draws; then the GPU tests
# on C. One tar. Carry ["dist"], dist's binaries compressed.
set -u
cd "$(dirname "$0")/../.."
bash scripts/device-unpack.sh
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
W=/tmp/c5; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader > "$W/gpu.txt"; cat "$W/gpu.txt"
fin() { tar czf "$OUT/call5.tgz" -C /tmp c5; }
python3 scripts/make-shapes-workloads.py --wide dist/wide.jsonl > /dev/null
WL=(--workloads dist/seed.jsonl --workloads dist/wide.jsonl --workloads dist/mix.jsonl --workloads dist/val.jsonl)
for m in short-decode short-decode-holdout short-decode-holdout2 short-decode-holdout3; do
  python3 scripts/make-sweep-workloads.py --$m dist/$m.jsonl > /dev/null; WL+=(--workloads dist/$m.jsonl)
done
AB_ROUNDS=2 AB_TIMEOUT=40 OUT=$W/ab timeout 120 bash scripts/device-ab.sh B=dist/old/pagedattn C=dist/pagedattn -- "${WL[@]}" > "$W/ab.txt" 2>&1
echo "ab rc=$? $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$W/ab.txt" | grep -v "rc=0"; grep -E "^geomean" "$W/ab.txt" | cut -c1-200
grep -E "^\| seed(09|12|18)_" "$W/ab.txt"; fin
TESTS_TIMEOUT=140 OUT=$W bash scripts/device-run.sh tests > "$W/checks.txt" 2>&1
echo "tests $(( $(date +%s) - t0 ))s"; sed -n '/^=== summary/,$p' "$W/checks.txt"; fin
