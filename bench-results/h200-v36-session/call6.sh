#!/usr/bin/env bash
# Call 6 (thirtieth session): memcheck and racecheck, both plans, over the
# calls 96069e4's decode rule moved to m64 or m128dv on the fresh draws
# and the fitted ones (the kernels are c8c9888's; the configurations and
# splits these calls now take). Carry ["dist"].
set -u
for d in /usr/local/cuda/bin /usr/local/cuda/compute-sanitizer; do [ -d "$d" ] && PATH="$PATH:$d"; done
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
W=()
for m in short-decode-holdout4 decode-holdout4 short-decode-holdout3 decode-holdout; do
  python3 scripts/make-sweep-workloads.py --$m dist/$m.jsonl > /dev/null; W+=(--workloads dist/$m.jsonl); done
F=()
for f in sdecho4_b64_q14_kv768 sdecho4_b16_q3_kv3000 sdecho4_b3_q10_kv512 sdecho4_b48_q16_kv768 sdecho4_b6_q10_kv512 \
  decodeho4_b6_q6_kv4096 decodeho4_b1_q3_kv4096 decodeho4_b1_q7_kv16384 sdecho3_b1_q11_kv1024 sdecho3_b8_q1_kv3000 decodeho_b2_q1_kv8192; do F+=(--filter $f); done
for plan in host device; do for tool in memcheck racecheck; do
  timeout 80 compute-sanitizer --tool $tool --error-exitcode 9 dist/pagedattn check --backend cuda --cpu-ref-max-pairs 0 --plan $plan "${W[@]}" "${F[@]}" > "$OUT/san_${plan}_${tool}.log" 2>&1
  echo "$plan $tool rc=$? $(grep -E 'SUMMARY' "$OUT/san_${plan}_${tool}.log" | tail -1) $(grep -E '^[0-9]+ workloads?:' "$OUT/san_${plan}_${tool}.log") $(( $(date +%s) - t0 ))s"
done; done
