#!/usr/bin/env bash
# Call 6 (twenty-ninth session): srch's own effect under both plans (call 1
# ran srch's host plan only with l2pf on top): edca88e and srch, host and
# device plans, two rounds, the 145 calls of call 1. Carry ["dist"].
# Builds: as call 1 (srch.cubin).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files ab *.log 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
W=()
for m in short-decode short-decode-holdout short-decode-holdout2 short-decode-holdout3; do
  python3 scripts/make-sweep-workloads.py --$m dist/$m.jsonl > /dev/null; W+=(--workloads dist/$m.jsonl); done
python3 scripts/make-shapes-workloads.py --wide dist/wide.jsonl > /dev/null
W+=(--workloads dist/wide.jsonl --workloads dist/split.jsonl --workloads dist/seed.jsonl)
P=dist/pagedattn
AB_ROUNDS=2 AB_TIMEOUT=100 OUT=$OUT/ab bash scripts/device-ab.sh host=$P srchhost=$P@--attention-cubin=dist/var/srch.cubin \
  dev=$P@--plan=device srchdev=$P@--plan=device,--attention-cubin=dist/var/srch.cubin -- "${W[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$OUT/ab.txt" | grep -v "rc=0"; grep -E "output bits" "$OUT/ab.txt" | cut -c1-300
python3 - "$OUT/ab.txt" <<'PY'
import sys, math
rows=[l.split('|')[1:-1] for l in open(sys.argv[1]) if l.startswith('| ') and not l.startswith('| workload')]
n=['host','srchhost','dev','srchdev']
t=[[float(c.split()[0]) for c in r[1:5]] for r in rows]
med=lambda xs: sorted(xs)[len(xs)//2]
g=lambda xs: math.exp(sum(map(math.log,xs))/len(xs))
def cmp(a,b,sel=lambda r: True,label='all'):
    xs=[x for r,x in zip(rows,t) if sel(r)]
    print('%-5s %-8s/%-8s geomean %.4f median %+.2f us n %d' % (label, n[a], n[b], g([x[a]/x[b] for x in xs]), med([x[a]-x[b] for x in xs]), len(xs)))
seed=lambda r: r[0].strip().startswith('seed')
for a,b in [(1,0),(2,0),(3,1),(3,2)]: cmp(a,b); cmp(a,b,seed,'seed')
print('excess over the host plan: edca88e %.4f (median %+.2f us), srch %.4f (median %+.2f us)' % (g([x[2]/x[0] for x in t]), med([x[2]-x[0] for x in t]), g([x[3]/x[1] for x in t]), med([x[3]-x[1] for x in t])))
for r,x in zip(rows,t):
    if r[0].strip().startswith('seed1'): print('%-20s host %5.1f srchhost %5.1f dev %5.1f srchdev %5.1f' % (r[0].strip(), *x))
PY
