#!/usr/bin/env bash
# Call 4: the spread fine split (m64 chunks of 1-3 blocks where the spread
# merge takes the call, at most 128 units; host and kernel). (1) GPU tests;
# (2) new (host plan), newdev (device plan) and base = v17.9 (43b7f19's
# build), two rounds, on the four short-decode draws, the wide draw, the
# decode hold-out sweep and the seed set (new first: newdev's output bits
# against it check host and device plans); (3) the four sanitizers over the
# nine calls whose plan moves, both plans. Carry ["dist"].
set -u
for d in /usr/local/cuda/bin /usr/local/cuda/compute-sanitizer; do [ -d "$d" ] && PATH="$PATH:$d"; done
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files ab *.log 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
W=()
for m in short-decode short-decode-holdout short-decode-holdout2 short-decode-holdout3; do
  python3 scripts/make-sweep-workloads.py --$m dist/$m.jsonl > /dev/null; W+=(--workloads dist/$m.jsonl); done
python3 scripts/make-sweep-workloads.py --decode-holdout dist/decode-holdout.jsonl > /dev/null
python3 scripts/make-shapes-workloads.py --wide dist/wide.jsonl > /dev/null
W+=(--workloads dist/wide.jsonl --workloads dist/decode-holdout.jsonl --workloads dist/seed.jsonl)
P=dist/pagedattn
TESTS_TIMEOUT=150 bash scripts/device-run.sh tests > "$OUT/tests.log" 2>&1
grep -E "^gpu tests|spread merge:" "$OUT/tests.log" | head; grep -E "panicked" "$OUT/gpu_tests.log" | head -5
echo "tests $(( $(date +%s) - t0 ))s"
AB_ROUNDS=2 AB_TIMEOUT=150 OUT=$OUT/ab bash scripts/device-ab.sh new=$P newdev=$P@--plan=device base=dist/base-pagedattn -- "${W[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$OUT/ab.txt" | grep -v "rc=0"; grep -E "^geomean|output bits" "$OUT/ab.txt" | cut -c1-400
F="--filter sdecho_b1_q12_kv1536 --filter sdecho_b1_q9_kv512 --filter sdecho_b1_q14_kv512 --filter sdecho2_b2_q9_kv768 --filter sdecho2_b1_q14_kv384 --filter sdecho3_b1_q9_kv768 --filter sdecho3_b2_q3_kv1536 --filter sdecho3_b3_q8_kv768 --filter decodeho_b1_q14_kv1024"
for tool in memcheck synccheck initcheck racecheck; do
  for plan in host device; do
    timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $P check --backend cuda --cpu-ref-max-pairs 0 --plan $plan "${W[@]}" $F > "$OUT/san_${tool}_$plan.log" 2>&1
    echo "$tool $plan rc=$? $(grep -E 'SUMMARY' "$OUT/san_${tool}_$plan.log" | tail -1) $(grep -cE 'Race reported|Error:|Hazard' "$OUT/san_${tool}_$plan.log") reports; $(grep -E '^[0-9]+ workloads?:' "$OUT/san_${tool}_$plan.log") $(( $(date +%s) - t0 ))s"
  done
done
sed -n '/^| workload/,$p' "$OUT/ab.txt" | grep -v "output bits" | awk -F'|' '$6+0 < 0.97 || $6+0 > 1.03 || /workload|---/' | cut -c1-110
