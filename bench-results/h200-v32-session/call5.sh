#!/usr/bin/env bash
# Call 5: the device plan's split search by lanes (auto_chunk_warp: lane i
# takes candidate i; call 4 put auto_chunk's loop at +7-13 us of a short
# split call's device plan). (1) GPU tests; (2) host and device plans of
# this build, two rounds, on the four short-decode draws, the wide draw,
# the decode hold-out sweep and the seed set (dev's output bits against
# host's: the plans agree). Carry ["dist"].
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files ab *.log 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
W=()
for m in short-decode short-decode-holdout short-decode-holdout2 short-decode-holdout3; do
  python3 scripts/make-sweep-workloads.py --$m dist/$m.jsonl > /dev/null; W+=(--workloads dist/$m.jsonl); done
python3 scripts/make-sweep-workloads.py --decode-holdout dist/decode-holdout.jsonl > /dev/null
python3 scripts/make-shapes-workloads.py --wide dist/wide.jsonl > /dev/null
W+=(--workloads dist/wide.jsonl --workloads dist/decode-holdout.jsonl --workloads dist/seed.jsonl)
P=dist/pagedattn
AB_ROUNDS=2 AB_TIMEOUT=150 OUT=$OUT/ab bash scripts/device-ab.sh host=$P dev=$P@--plan=device -- "${W[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$OUT/ab.txt" | grep -v "rc=0"; grep -E "^geomean|output bits" "$OUT/ab.txt" | cut -c1-400
TESTS_TIMEOUT=150 bash scripts/device-run.sh tests > "$OUT/tests.log" 2>&1
grep -E "^gpu tests|spread merge:" "$OUT/tests.log" | head; grep -E "panicked" "$OUT/gpu_tests.log" | head -5
echo "tests $(( $(date +%s) - t0 ))s"
sed -n '/^| workload/,$p' "$OUT/ab.txt" | grep -v "output bits" | awk -F'|' '$6+0 > 1.08 || /workload|---/' | cut -c1-100
