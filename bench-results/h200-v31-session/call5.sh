#!/usr/bin/env bash
# Call 5: the spread merge for every split tile of a one-wave call whose
# longest tile has 7+ chunks (per call, from the plan), with call 4's
# pieces: (1) the GPU tests; (2) the HEAD build (base-pagedattn) against
# this build, its host and device plans, two rounds, on the spread calls of
# many rows, the four short-decode draws, the split and seed sets and eight
# serving, prefix and wide calls (dist/main7.jsonl: the main sets' calls
# whose plan is one wave with 7+ chunks, and neighbours); (3) the four
# sanitizers over 19 calls that take the spread merge, both plans.
# Carry ["dist"].
set -u
for d in /usr/local/cuda/bin /usr/local/cuda/compute-sanitizer; do [ -d "$d" ] && PATH="$PATH:$d"; done
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files ab *.log 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
P=dist/pagedattn
W="--workloads dist/spreadfrag.jsonl --workloads dist/short4.jsonl --workloads dist/split.jsonl --workloads dist/seed.jsonl --workloads dist/main7.jsonl"
TESTS_TIMEOUT=150 bash scripts/device-run.sh tests > "$OUT/tests.log" 2>&1
grep -E "^gpu tests|spread merge:" "$OUT/tests.log" | head; grep -E "panicked" "$OUT/gpu_tests.log" | head -5
echo "tests $(( $(date +%s) - t0 ))s"
AB_ROUNDS=2 AB_TIMEOUT=150 OUT=$OUT/ab bash scripts/device-ab.sh base=dist/base-pagedattn new=$P newdev=$P@--plan=device -- $W > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$OUT/ab.txt" | grep -v "rc=0"; grep -E "^geomean|output bits" "$OUT/ab.txt" | cut -c1-300
for tool in memcheck synccheck initcheck racecheck; do
  for plan in host device; do
    timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $P check --backend cuda --cpu-ref-max-pairs 0 \
      --plan $plan $W  --filter sdecho3_b4_q2_kv1024 --filter sdecho_b4_q4_kv1536 --filter sdecho3_b3_q12_kv2048 --filter sdecho_b2_q13_kv2048 --filter sdecho3_b2_q3_kv1536 --filter sdec_b4_q14_kv1536 --filter sdec_b1_q1_kv1024 --filter sdec_b3_q1_kv512 --filter sdecho_b2_q15_kv4096 --filter sdecho3_b3_q3_kv3000 --filter sdecho3_b6_q12_kv4096 --filter sdec_b6_q14_kv4096 --filter spread_b1_q8_kv5200 --filter spread_b2_q3_kv4700 --filter spread_b1_q10_kv4700 --filter decodeho3_b1_q4_kv4096 --filter decodeho_b3_q8_kv4096 --filter prefix_q32_kv16384_b2 --filter wide_decode3 > "$OUT/san_${tool}_$plan.log" 2>&1
    echo "$tool $plan rc=$? $(grep -E 'SUMMARY' "$OUT/san_${tool}_$plan.log" | tail -1) $(grep -cE 'Race reported|Error:|Hazard' "$OUT/san_${tool}_$plan.log") reports; $(grep -E '^[0-9]+ workloads?:' "$OUT/san_${tool}_$plan.log") $(( $(date +%s) - t0 ))s"
  done
done
sed -n '/^| workload/,$p' "$OUT/ab.txt" | grep -v "output bits" | cut -c1-100
