#!/usr/bin/env bash
# Call 2 (twenty-eighth session): edca88e (the warp plan's split search on
# the producer warpgroup; call 1's all-warps search slowed 4-sequence calls
# 0.4 us, and racecheck flagged its bar.arrive handoff). (1) GPU tests;
# (2) host (host plan) and dev (device plan) of this build, two rounds, on
# the four short-decode draws, the wide draw, the split set and the seed
# set (v18.0's device plan: call 1's v18dev, against the host plan of each
# call); (3) memcheck, racecheck, synccheck over split calls, device plan;
# (4) the wheel of edca88e: the package's GPU pytest and FlashInfer-Bench
# (the suite's protocol: device plan). Carry ["dist", ".whl", ".peers"].
set -u
for d in /usr/local/cuda/bin /usr/local/cuda/compute-sanitizer; do [ -d "$d" ] && PATH="$PATH:$d"; done
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files ab *.log 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
W=()
for m in short-decode short-decode-holdout short-decode-holdout2 short-decode-holdout3; do
  python3 scripts/make-sweep-workloads.py --$m dist/$m.jsonl > /dev/null; W+=(--workloads dist/$m.jsonl); done
python3 scripts/make-shapes-workloads.py --wide dist/wide.jsonl > /dev/null
W+=(--workloads dist/wide.jsonl --workloads dist/split.jsonl --workloads dist/seed.jsonl)
P=dist/pagedattn
TESTS_TIMEOUT=170 bash scripts/device-run.sh tests > "$OUT/tests.log" 2>&1
grep -E "^gpu tests|spread merge:" "$OUT/tests.log" | head; grep -E "panicked" "$OUT/gpu_tests.log" | head -5
echo "tests $(( $(date +%s) - t0 ))s"
AB_ROUNDS=2 AB_TIMEOUT=150 OUT=$OUT/ab bash scripts/device-ab.sh host=$P dev=$P@--plan=device -- "${W[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$OUT/ab.txt" | grep -v "rc=0"; grep -E "^geomean|output bits" "$OUT/ab.txt" | cut -c1-300
F="--filter split_ --filter sdec_b1_q1_kv1024 --filter sdec_b32_q5_kv4096 --filter sdec_b16_q1_kv4096 --filter sdecho3_b1_q9_kv768 --filter sdecho_b1_q12_kv1536 --filter sdecho2_b8_q7_kv512 --filter seed17 --filter seed14"
for tool in memcheck racecheck synccheck; do
  timeout 70 compute-sanitizer --tool $tool --error-exitcode 9 $P check --backend cuda --cpu-ref-max-pairs 0 --plan device "${W[@]}" $F > "$OUT/san_${tool}.log" 2>&1
  echo "$tool rc=$? $(grep -E 'SUMMARY' "$OUT/san_${tool}.log" | tail -1) $(grep -cE 'Race reported|Error:|Hazard' "$OUT/san_${tool}.log") reports; $(grep -E '^[0-9]+ workloads?:' "$OUT/san_${tool}.log") $(( $(date +%s) - t0 ))s"
done
timeout 330 bash scripts/device-python.sh pytest suite > "$OUT/py.log" 2>&1
echo "python rc=$? $(( $(date +%s) - t0 ))s"; sed -n '/^=== summary/,$p' "$OUT/py.log"; grep -E "^\| seed|geomean" "$OUT/suite/suite_results.md" 2>/dev/null | head -24
