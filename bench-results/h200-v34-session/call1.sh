#!/usr/bin/env bash
# Call 1 (twenty-eighth session): the warp plan's split search on every
# warp of the CTA (a candidate a warp, the sums to producer warp 0 through
# a named barrier) instead of one warp in rounds (v18.0).
# (1) GPU tests (this build); (2) the timeline variant of this build on six
# calls, host and device plans, one call per process (the first unit's
# decode stamp: what the plan costs a CTA); (3) host (host plan), dev
# (device plan) and v18dev (v18.0's kernels, dist/var/v180.cubin, device
# plan), two rounds, on the four short-decode draws, the wide draw, the
# split set and the seed set; (4) memcheck, racecheck, synccheck over
# split calls, device plan, this build. Carry ["dist"].
set -u
for d in /usr/local/cuda/bin /usr/local/cuda/compute-sanitizer; do [ -d "$d" ] && PATH="$PATH:$d"; done
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files ab tl *.log 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
W=()
for m in short-decode short-decode-holdout short-decode-holdout2 short-decode-holdout3; do
  python3 scripts/make-sweep-workloads.py --$m dist/$m.jsonl > /dev/null; W+=(--workloads dist/$m.jsonl); done
python3 scripts/make-shapes-workloads.py --wide dist/wide.jsonl > /dev/null
W+=(--workloads dist/wide.jsonl --workloads dist/split.jsonl --workloads dist/seed.jsonl)
P=dist/pagedattn
TESTS_TIMEOUT=170 bash scripts/device-run.sh tests > "$OUT/tests.log" 2>&1
grep -E "^gpu tests|spread merge:" "$OUT/tests.log" | head; grep -E "panicked" "$OUT/gpu_tests.log" | head -5
echo "tests $(( $(date +%s) - t0 ))s"
mkdir -p "$OUT/tl"
for w in sdec_b32_q5_kv4096 sdec_b16_q1_kv4096 seed17 seed19 sdec_b1_q1_kv1024 seed11; do
  for pl in host device; do
    timeout 40 $P bench --no-check --plan $pl --attention-cubin dist/var/tl.cubin "${W[@]}" --filter "$w" > "$OUT/tl/$w-$pl.txt" 2>&1
    echo "== $w $pl rc=$? $(grep -E '^TL' "$OUT/tl/$w-$pl.txt" | awk '{d+=$8; n++} END {if (n) printf "dec mean %.0f cyc over %d CTAs", d/n, n}')"
  done
done
echo "timeline $(( $(date +%s) - t0 ))s"
AB_ROUNDS=2 AB_TIMEOUT=150 OUT=$OUT/ab bash scripts/device-ab.sh host=$P dev=$P@--plan=device \
  v18dev=$P@--plan=device,--attention-cubin=dist/var/v180.cubin -- "${W[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$OUT/ab.txt" | grep -v "rc=0"; grep -E "^geomean|output bits" "$OUT/ab.txt" | cut -c1-300
F="--filter split_ --filter sdec_b1_q1_kv1024 --filter sdec_b32_q5_kv4096 --filter sdec_b16_q1_kv4096 --filter sdecho3_b1_q9_kv768 --filter sdecho_b1_q12_kv1536 --filter sdecho2_b8_q7_kv512 --filter seed17 --filter seed14"
for tool in memcheck racecheck synccheck; do
  timeout 70 compute-sanitizer --tool $tool --error-exitcode 9 $P check --backend cuda --cpu-ref-max-pairs 0 --plan device "${W[@]}" $F > "$OUT/san_${tool}.log" 2>&1
  echo "$tool rc=$? $(grep -E 'SUMMARY' "$OUT/san_${tool}.log" | tail -1) $(grep -cE 'Race reported|Error:|Hazard' "$OUT/san_${tool}.log") reports; $(grep -E '^[0-9]+ workloads?:' "$OUT/san_${tool}.log") $(( $(date +%s) - t0 ))s"
done
python3 - "$OUT/ab.txt" <<'PY'
import sys, math
rows=[l.split('|')[1:-1] for l in open(sys.argv[1]) if l.startswith('| ') and not l.startswith('| workload')]
def g(xs): return math.exp(sum(math.log(x) for x in xs)/len(xs))
cols=['host','dev','v18dev']
t=[[float(c.split()[0]) for c in r[1:4]] for r in rows]
names=[r[0].strip() for r in rows]
for j,c in enumerate(cols): print(c, 'geomean over host', round(g([x[j]/x[0] for x in t]),4), 'over v18dev', round(g([x[j]/x[2] for x in t]),4))
print('median dev-host us', sorted(x[1]-x[0] for x in t)[len(t)//2], 'v18dev-host', sorted(x[2]-x[0] for x in t)[len(t)//2])
print('rows where dev/v18dev > 1.02 or < 0.95:')
for n,x in zip(names,t):
    if x[1]/x[2]>1.02 or x[1]/x[2]<0.95: print(n, ' '.join(f'{v:.1f}' for v in x), round(x[1]/x[2],3))
PY
