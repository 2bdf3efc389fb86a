#!/usr/bin/env bash
# Call 3: the warp plan's split search in rounds (call 2: more code run once
# is slower, even with no L2 flush: w12, the fully unrolled search, 1.29 of
# the host plan's time, unrolled by 4 1.21, call 1's rolled loop 1.13; and
# call 1's walk over 17-32 sequences a lane a candidate cost seed17 9 us).
# Now `lanes` lanes a candidate (the batch rounded up to a power of two),
# 32 / lanes candidates a round, rolled loops, until a round holds the end
# of the walk; the CTA-built plan's search call 1's (a warp a candidate);
# one seq_units for the plan's tables; the doubling loop only when forced.
# k2: the same with seq_units not inlined (its code shared).
# (1) GPU tests (this build), and the plan-equality and split tests with k2;
# (2) host (host plan), dev (device plan), k2dev, c1dev (call 1's kernels),
# basedev (v17.9, 43b7f19's build), two rounds, on the four short-decode
# draws, the wide draw, the split set and the seed set; (3) memcheck,
# racecheck, synccheck over split calls of both plan builders, device plan,
# this build. Carry ["dist"].
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
PAGEDATTN_ATTENTION_CUBIN=dist/var/k2.cubin timeout 120 dist/gpu_tests --include-ignored --test-threads=1 host_plan split_kv spread_merge fallback > "$OUT/gpu_tests_k2.log" 2>&1
echo "k2 tests rc=$? $(grep -E '^test result' "$OUT/gpu_tests_k2.log")"; grep -E "panicked" "$OUT/gpu_tests_k2.log" | head -3
echo "tests $(( $(date +%s) - t0 ))s"
AB_ROUNDS=2 AB_TIMEOUT=150 OUT=$OUT/ab bash scripts/device-ab.sh host=$P dev=$P@--plan=device \
  k2dev=$P@--plan=device,--attention-cubin=dist/var/k2.cubin c1dev=$P@--plan=device,--attention-cubin=dist/var/c1.cubin \
  basedev=dist/base-pagedattn@--plan=device -- "${W[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$OUT/ab.txt" | grep -v "rc=0"; grep -E "^geomean|output bits" "$OUT/ab.txt" | cut -c1-300
F="--filter split_ --filter sdec_b1_q1_kv1024 --filter sdec_b48_q4_kv1536 --filter sdec_b32_q5_kv4096 --filter sdecho3_b1_q9_kv768 --filter sdecho_b1_q12_kv1536 --filter sdecho2_b8_q7_kv512 --filter seed17 --filter seed14"
for tool in memcheck racecheck synccheck; do
  timeout 70 compute-sanitizer --tool $tool --error-exitcode 9 $P check --backend cuda --cpu-ref-max-pairs 0 --plan device "${W[@]}" $F > "$OUT/san_${tool}.log" 2>&1
  echo "$tool rc=$? $(grep -E 'SUMMARY' "$OUT/san_${tool}.log" | tail -1) $(grep -cE 'Race reported|Error:|Hazard' "$OUT/san_${tool}.log") reports; $(grep -E '^[0-9]+ workloads?:' "$OUT/san_${tool}.log") $(( $(date +%s) - t0 ))s"
done
python3 - "$OUT/ab.txt" <<'PY'
import sys, math
rows=[l.split('|')[1:-1] for l in open(sys.argv[1]) if l.startswith('| ') and not l.startswith('| workload')]
def g(xs): return math.exp(sum(math.log(x) for x in xs)/len(xs))
cols=['host','dev','k2dev','c1dev','basedev']
t=[[float(c.split()[0]) for c in r[1:6]] for r in rows]
names=[r[0].strip() for r in rows]
for j,c in enumerate(cols): print(c, 'geomean over host', round(g([x[j]/x[0] for x in t]),4), 'over basedev', round(g([x[j]/x[4] for x in t]),4))
print('rows where dev/basedev > 1.02 or k2dev/basedev > 1.02 or dev/host > 1.25:')
for n,x in zip(names,t):
    if x[1]/x[4]>1.02 or x[2]/x[4]>1.02 or x[1]/x[0]>1.25: print(n, ' '.join(f'{v:.1f}' for v in x))
PY
