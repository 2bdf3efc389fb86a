#!/usr/bin/env bash
# Call 2 (thirtieth session): the decode rule (schedule::decode_prefers_m128dv,
# fitted in the twentieth to twenty-third sessions) against today's kernel.
# Call 1's sweep found m64 faster than the rule's m128dv on 8 of 12 short
# calls near or above FlashInfer's time (sdecho3_b8_q1_kv3000 33.1 -> 28.6
# us, sdecho3_b1_q11_kv1024 16.3 -> 14.9). One round: (1) auto, m64 and
# m128dv (each with the automatic split) over the decode-like draws (the four
# short-decode draws, row-decode, decode-holdout, -holdout2, -holdout3: 148
# calls); (2) forced split sizes on the 100 short calls (m64: 1, 2, 4
# blocks; m128dv: 1, 2). Carry ["dist"]. Build: dist/ of 32f718e.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files cfg forced 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
S=(); L=()
for m in short-decode short-decode-holdout short-decode-holdout2 short-decode-holdout3 row-decode; do
  python3 scripts/make-sweep-workloads.py --$m dist/$m.jsonl > /dev/null; S+=(--workloads dist/$m.jsonl); done
for m in decode-holdout decode-holdout2 decode-holdout3; do
  python3 scripts/make-sweep-workloads.py --$m dist/$m.jsonl > /dev/null; L+=(--workloads dist/$m.jsonl); done
P=dist/pagedattn
AB_TIMEOUT=150 OUT=$OUT/cfg bash scripts/device-ab.sh auto=$P m64=$P@--tile=m64 dv=$P@--tile=m128dv -- "${S[@]}" "${L[@]}" > "$OUT/cfg.txt" 2>&1
echo "cfg $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$OUT/cfg.txt" | grep -v "rc=0"
C=(auto=$P)
for s in 1 2 4; do C+=(m64s$s=$P@--tile=m64,--split=$s); done
for s in 1 2; do C+=(dvs$s=$P@--tile=m128dv,--split=$s); done
AB_TIMEOUT=90 OUT=$OUT/forced bash scripts/device-ab.sh "${C[@]}" -- "${S[@]}" > "$OUT/forced.txt" 2>&1
echo "forced $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$OUT/forced.txt" | grep -v "rc=0"
python3 - "$OUT/cfg.txt" <<'PY'
import sys, math
rows=[l.split('|')[1:-1] for l in open(sys.argv[1]) if l.startswith('| ') and not l.startswith('| workload')]
t=[[float(c.split()[0]) for c in r[1:4]] for r in rows]
g=lambda xs: math.exp(sum(map(math.log,xs))/len(xs))
print('auto/best %.4f  m64/auto %.4f  dv/auto %.4f n %d' % (g([x[0]/min(x[1],x[2]) for x in t]), g([x[1]/x[0] for x in t]), g([x[2]/x[0] for x in t]), len(t)))
print('rows where the other config is >3%% faster than auto: %d' % sum(1 for x in t if min(x[1],x[2]) < 0.97*x[0]))
PY
