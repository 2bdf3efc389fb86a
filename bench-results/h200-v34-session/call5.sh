#!/usr/bin/env bash
# Call 5 (twenty-eighth session): the split search's estimate divided in
# double (exact below 2^52; the 64-bit integer division beyond), against
# edca88e's kernels (dist/var/e88.cubin). Call 4's plantl: the search is
# 4400-7700 cycles of a CTA's first 9000-14000 under the device plan, a
# dependent chain of ~700 instructions, two 64-bit divisions (~80 each)
# among them. (1) GPU tests; (2) host, dev, e88dev, one round, on the four
# short-decode draws, the wide draw, the split set and the seed set.
# Carry ["dist"].
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files ab *.log 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
W=()
for m in short-decode short-decode-holdout short-decode-holdout2 short-decode-holdout3; do
  python3 scripts/make-sweep-workloads.py --$m dist/$m.jsonl > /dev/null; W+=(--workloads dist/$m.jsonl); done
python3 scripts/make-shapes-workloads.py --wide dist/wide.jsonl > /dev/null
W+=(--workloads dist/wide.jsonl --workloads dist/split.jsonl --workloads dist/seed.jsonl)
P=dist/pagedattn
TESTS_TIMEOUT=150 bash scripts/device-run.sh tests > "$OUT/tests.log" 2>&1
grep -E "^gpu tests|spread merge:" "$OUT/tests.log" | head; grep -E "panicked" "$OUT/gpu_tests.log" | head -5
echo "tests $(( $(date +%s) - t0 ))s"
AB_ROUNDS=1 AB_TIMEOUT=100 OUT=$OUT/ab bash scripts/device-ab.sh host=$P dev=$P@--plan=device \
  e88dev=$P@--plan=device,--attention-cubin=dist/var/e88.cubin -- "${W[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$OUT/ab.txt" | grep -v "rc=0"; grep -E "output bits" "$OUT/ab.txt" | cut -c1-300
python3 - "$OUT/ab.txt" <<'PY'
import sys, math
rows=[l.split('|')[1:-1] for l in open(sys.argv[1]) if l.startswith('| ') and not l.startswith('| workload')]
t=[[float(c.split()[0]) for c in r[1:4]] for r in rows]
med=lambda xs: sorted(xs)[len(xs)//2]
g=lambda xs: math.exp(sum(map(math.log,xs))/len(xs))
print('geomean dev/host', round(g([x[1]/x[0] for x in t]),4), 'e88dev/host', round(g([x[2]/x[0] for x in t]),4), 'dev/e88dev', round(g([x[1]/x[2] for x in t]),4))
print('median us dev-host', med([x[1]-x[0] for x in t]), 'e88dev-host', med([x[2]-x[0] for x in t]), 'dev-e88dev', med([x[1]-x[2] for x in t]))
PY
