#!/usr/bin/env bash
# Call 1: the device plan's split search priced all at once (pick_candidate:
# a lane a candidate; auto_chunk_warp two lanes a candidate over half the
# sequences each, auto_chunk_block a warp a candidate) with the spread fine
# split back (bench-results/h200-v32-session/spread_fine_split.patch).
# (1) GPU tests; (2) new (host plan), newdev (device plan) and basedev
# (v17.9 = 43b7f19's build, device plan), two rounds, on the four
# short-decode draws, the wide draw, the decode hold-out sweep, the split
# set and the seed set (newdev's output bits against new's: the plans
# agree); (3) memcheck, racecheck, synccheck, initcheck over split calls of
# the warp-built and the CTA-built plans, device plan. Carry ["dist"].
set -u
for d in /usr/local/cuda/bin /usr/local/cuda/compute-sanitizer; do [ -d "$d" ] && PATH="$PATH:$d"; done
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files ab *.log 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
W=()
for m in short-decode short-decode-holdout short-decode-holdout2 short-decode-holdout3; do
  python3 scripts/make-sweep-workloads.py --$m dist/$m.jsonl > /dev/null; W+=(--workloads dist/$m.jsonl); done
python3 scripts/make-sweep-workloads.py --decode-holdout dist/decode-holdout.jsonl > /dev/null
python3 scripts/make-shapes-workloads.py --wide dist/wide.jsonl > /dev/null
W+=(--workloads dist/wide.jsonl --workloads dist/decode-holdout.jsonl --workloads dist/split.jsonl --workloads dist/seed.jsonl)
P=dist/pagedattn
TESTS_TIMEOUT=170 bash scripts/device-run.sh tests > "$OUT/tests.log" 2>&1
grep -E "^gpu tests|spread merge:" "$OUT/tests.log" | head; grep -E "panicked" "$OUT/gpu_tests.log" | head -5
echo "tests $(( $(date +%s) - t0 ))s"
AB_ROUNDS=2 AB_TIMEOUT=150 OUT=$OUT/ab bash scripts/device-ab.sh new=$P newdev=$P@--plan=device basedev=dist/base-pagedattn@--plan=device -- "${W[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$OUT/ab.txt" | grep -v "rc=0"; grep -E "^geomean|output bits" "$OUT/ab.txt" | cut -c1-400
F="--filter split_ --filter sdec_b1_q1_kv1024 --filter sdec_b48_q4_kv1536 --filter sdec_b32_q5_kv4096 --filter sdecho3_b1_q9_kv768 --filter sdecho_b1_q12_kv1536"
for tool in memcheck racecheck synccheck initcheck; do
  timeout 70 compute-sanitizer --tool $tool --error-exitcode 9 $P check --backend cuda --cpu-ref-max-pairs 0 --plan device "${W[@]}" $F > "$OUT/san_${tool}.log" 2>&1
  echo "$tool rc=$? $(grep -E 'SUMMARY' "$OUT/san_${tool}.log" | tail -1) $(grep -cE 'Race reported|Error:|Hazard' "$OUT/san_${tool}.log") reports; $(grep -E '^[0-9]+ workloads?:' "$OUT/san_${tool}.log") $(( $(date +%s) - t0 ))s"
done
sed -n '/^| workload/,$p' "$OUT/ab.txt" | grep -v "output bits" | awk -F'|' '$4+0 > 0 && ($4/$3 > 1.06 || $5/$4 > 1.15) || /workload|---/' | cut -c1-110 | head -70
