#!/usr/bin/env bash
# Call 3 (twenty-ninth session): is the warp plan's search bound by its
# code's fetch? (1) s2xtl (plantl, srch's kernels, the search run twice in
# a row, clock64 around each, CTAs 0-11), device plan; (2) A/B, two rounds,
# seed set and the first short-decode draw: edca88e host, device, device
# with --split=never (no search), s2x (srch with the search run twice),
# swarm (srch, consumer warp 4 running the search on made-up lengths at
# entry: its code in the SM's instruction cache before the producer's
# run), all under the device plan. Carry ["dist"].
# Builds: s2xtl.cubin from `scripts/variant-src.py plantl` on srch's
# kernels with the search called twice between clock64 reads (S2 lines);
# s2x.cubin from srch.patch + s2x-on-srch.patch; swarm.cubin from
# srch.patch + swarm-on-srch.patch; srch.cubin as in call 1. Output: call3/
# (the script's S2 summary read the wrong fields; the raw lines are in
# logs.tgz, tl/).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files ab tl *.log 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
P=dist/pagedattn
python3 scripts/make-sweep-workloads.py --short-decode dist/short-decode.jsonl > /dev/null
W=(--workloads dist/short-decode.jsonl --workloads dist/seed.jsonl)
mkdir -p "$OUT/tl"
for w in seed11 seed13 seed17 sdec_b1_q1_kv1024 sdec_b16_q1_kv4096; do
  timeout 40 $P bench --no-check --plan device --attention-cubin dist/var/s2xtl.cubin "${W[@]}" --filter "$w" > "$OUT/tl/$w.txt" 2>&1
  grep -E '^S2' "$OUT/tl/$w.txt" | awk -v w=$w '{a+=$5; b+=$7; n++} END {printf "%-22s CTAs %d: first search %.0f cyc, second %.0f cyc\n", w, n, a/n, b/n}'
done
echo "timeline $(( $(date +%s) - t0 ))s"
AB_ROUNDS=2 AB_TIMEOUT=100 OUT=$OUT/ab bash scripts/device-ab.sh host=$P dev=$P@--plan=device \
  devnever=$P@--plan=device,--split=never s2x=$P@--plan=device,--attention-cubin=dist/var/s2x.cubin \
  swarm=$P@--plan=device,--attention-cubin=dist/var/swarm.cubin \
  srch=$P@--plan=device,--attention-cubin=dist/var/srch.cubin -- "${W[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$OUT/ab.txt" | grep -v "rc=0"; grep -E "output bits" "$OUT/ab.txt" | cut -c1-300
python3 - "$OUT/ab.txt" <<'PY'
import sys, math
rows=[l.split('|')[1:-1] for l in open(sys.argv[1]) if l.startswith('| ') and not l.startswith('| workload')]
n=['host','dev','devnever','s2x','swarm','srch']
t=[[float(c.split()[0]) for c in r[1:7]] for r in rows]
med=lambda xs: sorted(xs)[len(xs)//2]
g=lambda xs: math.exp(sum(map(math.log,xs))/len(xs))
for r,x in zip(rows,t): print('%-22s ' % r[0].strip() + ' '.join('%s %5.1f' % (a,b) for a,b in zip(n,x)))
for i in range(1,6): print('%-8s/host geomean %.4f median %+.2f us | /dev %.4f median %+.2f us' % (n[i], g([x[i]/x[0] for x in t]), med([x[i]-x[0] for x in t]), g([x[i]/x[1] for x in t]), med([x[i]-x[1] for x in t])))
PY
