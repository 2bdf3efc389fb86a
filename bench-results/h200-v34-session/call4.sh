#!/usr/bin/env bash
# Call 4 (twenty-eighth session): where the device plan's ~6000 cycles
# before a CTA's first unit go (edca88e's build). (1) plantl (timeline
# with two stamps inside the warp-built plan: sequences loaded, split search
# done; `dec` is the first unit decoded) on seven calls, host and device
# plans, one call per process; (2) host and device plans, graph and
# graph-cold-data timing (the code warm, the data cold), one round, on the
# four short-decode draws, the wide draw, the split set and the seed set.
# Carry ["dist"].
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files ab tl *.log 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
W=()
for m in short-decode short-decode-holdout short-decode-holdout2 short-decode-holdout3; do
  python3 scripts/make-sweep-workloads.py --$m dist/$m.jsonl > /dev/null; W+=(--workloads dist/$m.jsonl); done
python3 scripts/make-shapes-workloads.py --wide dist/wide.jsonl > /dev/null
W+=(--workloads dist/wide.jsonl --workloads dist/split.jsonl --workloads dist/seed.jsonl)
P=dist/pagedattn
mkdir -p "$OUT/tl"
for w in sdec_b1_q1_kv1024 seed11 sdec_b4_q6_kv384 seed19 sdec_b16_q1_kv4096 seed17 sdec_b32_q5_kv4096; do
  for pl in host device; do
    timeout 40 $P bench --no-check --plan $pl --attention-cubin dist/var/plantl.cubin "${W[@]}" --filter "$w" > "$OUT/tl/$w-$pl.txt" 2>&1
    echo "== $w $pl rc=$? $(grep -E '^TL' "$OUT/tl/$w-$pl.txt" | awk '{d+=$8; s+=$34; c+=$36; n++} END {if (n) printf "over %d CTAs: seqs %.0f search %.0f dec %.0f cyc", n, s/n, c/n, d/n}')"
  done
done
echo "timeline $(( $(date +%s) - t0 ))s"
AB_ROUNDS=1 AB_TIMEOUT=100 OUT=$OUT/ab bash scripts/device-ab.sh host=$P dev=$P@--plan=device \
  hostcd=$P@--cuda-timing=graph-cold-data devcd=$P@--plan=device,--cuda-timing=graph-cold-data -- "${W[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$OUT/ab.txt" | grep -v "rc=0"
python3 - "$OUT/ab.txt" <<'PY'
import sys, math
rows=[l.split('|')[1:-1] for l in open(sys.argv[1]) if l.startswith('| ') and not l.startswith('| workload')]
t=[[float(c.split()[0]) for c in r[1:5]] for r in rows]
med=lambda xs: sorted(xs)[len(xs)//2]
g=lambda xs: math.exp(sum(map(math.log,xs))/len(xs))
print('median us: dev-host', med([x[1]-x[0] for x in t]), 'devcd-hostcd', med([x[3]-x[2] for x in t]), 'host-hostcd', med([x[0]-x[2] for x in t]), 'dev-devcd', med([x[1]-x[3] for x in t]))
print('geomean dev/host', round(g([x[1]/x[0] for x in t]),4), 'devcd/hostcd', round(g([x[3]/x[2] for x in t]),4))
PY
