#!/usr/bin/env bash
# Call 2: the split search as independent chains. Call 1's search (a lane a
# candidate, each lane walking the sequences) left split calls 3-7 us slower
# under the device plan than under the host plan, and made calls of 29-48
# sequences up to 9 us slower than v17.9's device plan: one warp's chain per
# sequence. Now each lane prices its own sequence under every candidate
# (warp plan: unrolled by 4; w12: fully unrolled; the CTA-built plan: every
# thread all 12), the forced split's doubling loop only when forced.
# (1) GPU tests; (2) host (this build, host plan), dev (device plan), c1dev
# (call 1's kernels), w12dev, basedev (v17.9, 43b7f19's build), two rounds,
# on the four short-decode draws, the wide draw, the split set and the seed
# set; (3) host and device plans without the L2 flush (graph-warm) on the
# split calls; (4) memcheck, racecheck, synccheck over split calls of both
# plan builders, device plan. Carry ["dist"].
set -u
for d in /usr/local/cuda/bin /usr/local/cuda/compute-sanitizer; do [ -d "$d" ] && PATH="$PATH:$d"; done
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files ab abw *.log 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
W=()
for m in short-decode short-decode-holdout short-decode-holdout2 short-decode-holdout3; do
  python3 scripts/make-sweep-workloads.py --$m dist/$m.jsonl > /dev/null; W+=(--workloads dist/$m.jsonl); done
python3 scripts/make-shapes-workloads.py --wide dist/wide.jsonl > /dev/null
W+=(--workloads dist/wide.jsonl --workloads dist/split.jsonl --workloads dist/seed.jsonl)
P=dist/pagedattn
TESTS_TIMEOUT=170 bash scripts/device-run.sh tests > "$OUT/tests.log" 2>&1
grep -E "^gpu tests|spread merge:" "$OUT/tests.log" | head; grep -E "panicked" "$OUT/gpu_tests.log" | head -5
echo "tests $(( $(date +%s) - t0 ))s"
AB_ROUNDS=2 AB_TIMEOUT=150 OUT=$OUT/ab bash scripts/device-ab.sh host=$P dev=$P@--plan=device \
  c1dev=$P@--plan=device,--attention-cubin=dist/var/c1.cubin w12dev=$P@--plan=device,--attention-cubin=dist/var/w12.cubin \
  basedev=dist/base-pagedattn@--plan=device -- "${W[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$OUT/ab.txt" | grep -v "rc=0"; grep -E "^geomean|output bits" "$OUT/ab.txt" | cut -c1-300
F="--filter split_ --filter sdec_b1_q1_kv1024 --filter sdec_b48_q4_kv1536 --filter sdec_b32_q5_kv4096 --filter sdecho3_b1_q9_kv768 --filter sdecho_b1_q12_kv1536 --filter sdecho2_b8_q7_kv512 --filter seed17 --filter seed14"
OUT=$OUT/abw bash scripts/device-ab.sh hostwarm=$P@--cuda-timing=graph-warm devwarm=$P@--plan=device,--cuda-timing=graph-warm \
  basedevwarm=dist/base-pagedattn@--plan=device,--cuda-timing=graph-warm -- "${W[@]}" $F > "$OUT/abw.txt" 2>&1
echo "abw $(( $(date +%s) - t0 ))s"
for tool in memcheck racecheck synccheck; do
  timeout 70 compute-sanitizer --tool $tool --error-exitcode 9 $P check --backend cuda --cpu-ref-max-pairs 0 --plan device "${W[@]}" $F > "$OUT/san_${tool}.log" 2>&1
  echo "$tool rc=$? $(grep -E 'SUMMARY' "$OUT/san_${tool}.log" | tail -1) $(grep -cE 'Race reported|Error:|Hazard' "$OUT/san_${tool}.log") reports; $(grep -E '^[0-9]+ workloads?:' "$OUT/san_${tool}.log") $(( $(date +%s) - t0 ))s"
done
sed -n '/^| workload/,$p' "$OUT/abw.txt" | grep -v "output bits"
python3 - "$OUT/ab.txt" <<'PY'
import sys, math
rows=[l.split('|')[1:-1] for l in open(sys.argv[1]) if l.startswith('| ') and not l.startswith('| workload')]
def g(xs): return math.exp(sum(math.log(x) for x in xs)/len(xs))
cols=['host','dev','c1dev','w12dev','basedev']
t=[[float(c.split()[0]) for c in r[1:6]] for r in rows]
names=[r[0].strip() for r in rows]
for j,c in enumerate(cols): print(c, 'geomean over host', round(g([x[j]/x[0] for x in t]),4))
print('rows where dev/host > 1.12 or dev/basedev > 1.03:')
for n,x in zip(names,t):
    if x[1]/x[0]>1.12 or x[1]/x[4]>1.03: print(n, ' '.join(f'{v:.1f}' for v in x))
PY
