#!/usr/bin/env bash
# Call 2 (twenty-ninth session): why call 1's earlier first unit (srch,
# seed11's CTAs 0-11 ~2200 cycles sooner) left the call's time as it was.
# (1) gridtl (plantl's stamps, every CTA printed) on edca88e's kernels and
# on srch's, host and device plans, one call per process; (2) the device
# plan's search end to end: host and device plans, each with the automatic
# split and with --split=never, three rounds on the seed set (no seed row
# splits, so the outputs are the same and only the search differs).
# Carry ["dist"].
# Builds: gridtl.cubin and gridtl2.cubin from searchtl's sources on
# edca88e's kernels and on srch's, with the print condition
# `blockIdx.x < 12` changed to `blockIdx.x < 1024` (every CTA). Output: call2/.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files ab tl *.log 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
P=dist/pagedattn
python3 scripts/make-sweep-workloads.py --short-decode dist/short-decode.jsonl > /dev/null
W=(--workloads dist/short-decode.jsonl --workloads dist/seed.jsonl)
mkdir -p "$OUT/tl"
for v in gridtl gridtl2; do
  for w in seed11 seed13 seed10 sdec_b1_q1_kv1024 seed17; do
    for pl in host device; do
      timeout 40 $P bench --no-check --plan $pl --attention-cubin dist/var/$v.cubin "${W[@]}" --filter "$w" > "$OUT/tl/$w-$v-$pl.txt" 2>&1
      grep -E '^TL' "$OUT/tl/$w-$v-$pl.txt" | python3 -c '
import sys,re
rows=[dict((k,int(v)) for k,v in re.findall(r"([a-z0-9]+) +(-?\d+)",l)) for l in sys.stdin]
if not rows: print(sys.argv[1], "no TL"); sys.exit()
f=lambda k: sorted(r[k] for r in rows)
d,e,m=f("dec"),f("exit"),f("mainloop")
n=len(rows)
print("%-40s CTAs %3d dec min/med/max %6d %6d %6d | first unit end med/max %6d %6d | exit min/med/max %6d %6d %6d | span med %d ns" % (sys.argv[1], n, d[0], d[n//2], d[-1], m[n//2], m[-1], e[0], e[n//2], e[-1], sorted(r["span"] for r in rows)[n//2]))' "$w-$v-$pl"
    done
  done
done
echo "timeline $(( $(date +%s) - t0 ))s"
AB_ROUNDS=3 AB_TIMEOUT=100 OUT=$OUT/ab bash scripts/device-ab.sh host=$P dev=$P@--plan=device \
  hostnever=$P@--split=never devnever=$P@--plan=device,--split=never -- --workloads dist/seed.jsonl > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$OUT/ab.txt" | grep -v "rc=0"; grep -E "output bits" "$OUT/ab.txt" | cut -c1-300
python3 - "$OUT/ab.txt" <<'PY'
import sys, math
rows=[l.split('|')[1:-1] for l in open(sys.argv[1]) if l.startswith('| ') and not l.startswith('| workload')]
t=[[float(c.split()[0]) for c in r[1:5]] for r in rows]
med=lambda xs: sorted(xs)[len(xs)//2]
g=lambda xs: math.exp(sum(map(math.log,xs))/len(xs))
for r,x in zip(rows,t): print('%-20s host %5.1f dev %5.1f hostnever %5.1f devnever %5.1f | dev-host %+.1f devnever-host %+.1f' % (r[0].strip(), *x, x[1]-x[0], x[3]-x[0]))
print('geomean dev/host', round(g([x[1]/x[0] for x in t]),4), 'devnever/host', round(g([x[3]/x[0] for x in t]),4), 'hostnever/host', round(g([x[2]/x[0] for x in t]),4))
PY
