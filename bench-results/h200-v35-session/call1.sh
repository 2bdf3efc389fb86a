#!/usr/bin/env bash
# Call 1 (twenty-ninth session). (1) GPU tests on srch (the warp plan's
# search: one reciprocal a candidate, chunk(i) without a run-time division,
# the units kept for the plan's builder); (2) searchtl (stamps in registers
# inside the warp plan's search and build) on edca88e's kernels and on
# srch's, device plan, one call per process; (3) A/B, two rounds: edca88e
# host and device plans, srch device, srch + l2pf (the consumer warps'
# L2 prefetch of a small call) host and device, on the four short-decode
# draws, the wide draw, the split set and the seed set. Carry ["dist"].
# Builds (here, on edca88e's tree): dist/ by scripts/dist.sh; srch.cubin
# from the kernels with srch.patch; srchl2pf.cubin from the same with
# ../h200-v34-session/l2pf.patch on top; searchtl.cubin from
# `scripts/variant-src.py searchtl` as it then stood (its ST line was not
# yet printed: only plantl's stamps came back). Output: call1/.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files ab tl *.log 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
W=()
for m in short-decode short-decode-holdout short-decode-holdout2 short-decode-holdout3; do
  python3 scripts/make-sweep-workloads.py --$m dist/$m.jsonl > /dev/null; W+=(--workloads dist/$m.jsonl); done
python3 scripts/make-shapes-workloads.py --wide dist/wide.jsonl > /dev/null
W+=(--workloads dist/wide.jsonl --workloads dist/split.jsonl --workloads dist/seed.jsonl)
P=dist/pagedattn
PAGEDATTN_ATTENTION_CUBIN=dist/var/srch.cubin TESTS_TIMEOUT=150 bash scripts/device-run.sh tests > "$OUT/tests.log" 2>&1
grep -E "^gpu tests|spread merge:" "$OUT/tests.log" | head; grep -E "panicked" "$OUT/gpu_tests.log" | head -5
echo "tests $(( $(date +%s) - t0 ))s"
mkdir -p "$OUT/tl"
for v in searchtl searchtl2; do
  for w in sdec_b1_q1_kv1024 seed11 seed19 sdec_b16_q1_kv4096 seed17 sdec_b32_q5_kv4096; do
    timeout 40 $P bench --no-check --plan device --attention-cubin dist/var/$v.cubin "${W[@]}" --filter "$w" > "$OUT/tl/$w-$v.txt" 2>&1
    echo "== $w $v rc=$? $(grep -E '^TL' "$OUT/tl/$w-$v.txt" | python3 -c '
import sys,re
rows=[list(map(int,re.findall(r"-?\d+",l.split("|",1)[1]))) for l in sys.stdin]
if rows:
    m=[sum(c)/len(rows) for c in zip(*rows)]
    print("CTAs %d: dec %.0f | seqs %.0f search %.0f | st %s | bp %s" % (len(rows), m[0], m[11], m[12], " ".join("%.0f"%x for x in m[13:17]), " ".join("%.0f"%x for x in m[17:20])))')"
  done
done
echo "timeline $(( $(date +%s) - t0 ))s"
AB_ROUNDS=2 AB_TIMEOUT=100 OUT=$OUT/ab bash scripts/device-ab.sh host=$P dev=$P@--plan=device \
  srchdev=$P@--plan=device,--attention-cubin=dist/var/srch.cubin \
  sl2host=$P@--attention-cubin=dist/var/srchl2pf.cubin \
  sl2dev=$P@--plan=device,--attention-cubin=dist/var/srchl2pf.cubin -- "${W[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$OUT/ab.txt" | grep -v "rc=0"; grep -E "output bits" "$OUT/ab.txt" | cut -c1-300
python3 - "$OUT/ab.txt" <<'PY'
import sys, math
rows=[l.split('|')[1:-1] for l in open(sys.argv[1]) if l.startswith('| ') and not l.startswith('| workload')]
names=['host','dev','srchdev','sl2host','sl2dev']
t=[[float(c.split()[0]) for c in r[1:6]] for r in rows]
med=lambda xs: sorted(xs)[len(xs)//2]
g=lambda xs: math.exp(sum(map(math.log,xs))/len(xs))
def cmp(a,b,sel=lambda r: True,label='all'):
    xs=[x for r,x in zip(rows,t) if sel(r)]
    if xs: print('%-6s %-8s/%-8s geomean %.4f median us %+.2f n %d' % (label, names[a], names[b], g([x[a]/x[b] for x in xs]), med([x[a]-x[b] for x in xs]), len(xs)))
for a,b in [(1,0),(2,1),(2,0),(3,0),(4,2),(4,1),(4,0)]: cmp(a,b)
seed=lambda r: r[0].strip().startswith('seed')
for a,b in [(3,0),(4,1),(2,1)]: cmp(a,b,seed,'seed')
tiny=lambda r: r[0].strip()[:6] in ('seed00','seed01','seed02','seed03','seed04','seed05','seed06')
cmp(3,0,tiny,'tiny')
PY
