#!/usr/bin/env bash
# Call 1 (thirtieth session): (1) the timing call 8 lost: the shipped plan
# memo (c8c9888, writer the last CTA before its last copy-out's wait) beside
# edca88e (v18.1, base.cubin) and the memo's miss path (memomiss: the key
# never matches), two rounds over the 145 calls of the twenty-ninth
# session's A/B; (2) initcheck over the memo's GPU test (the fourth
# sanitizer; call 8 ran the other three); (3) a forced sweep of tile
# configuration and split size over the short calls above or near
# FlashInfer's time in v18.1's table call (one round). Carry ["dist"].
# Builds: dist/ by scripts/dist.sh on 32f718e (kernels as c8c9888);
# dist/var/base.cubin: edca88e's kernels; memomiss.cubin:
# `scripts/variant-src.py memomiss`.
set -u
for d in /usr/local/cuda/bin /usr/local/cuda/compute-sanitizer; do [ -d "$d" ] && PATH="$PATH:$d"; done
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files ab sweep *.log 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
W=()
for m in short-decode short-decode-holdout short-decode-holdout2 short-decode-holdout3; do
  python3 scripts/make-sweep-workloads.py --$m dist/$m.jsonl > /dev/null; W+=(--workloads dist/$m.jsonl); done
python3 scripts/make-shapes-workloads.py --wide dist/wide.jsonl > /dev/null
W+=(--workloads dist/wide.jsonl --workloads dist/split.jsonl --workloads dist/seed.jsonl)
P=dist/pagedattn
AB_ROUNDS=2 AB_TIMEOUT=120 OUT=$OUT/ab bash scripts/device-ab.sh memohost=$P \
  dev=$P@--plan=device,--attention-cubin=dist/var/base.cubin memodev=$P@--plan=device \
  missdev=$P@--plan=device,--attention-cubin=dist/var/memomiss.cubin -- "${W[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$OUT/ab.txt" | grep -v "rc=0"; grep -E "output bits" "$OUT/ab.txt" | cut -c1-400
timeout 100 compute-sanitizer --tool initcheck --error-exitcode 9 dist/gpu_tests plan_memo --include-ignored --test-threads=1 > "$OUT/san_initcheck.log" 2>&1
echo "initcheck rc=$? $(grep -E 'SUMMARY' "$OUT/san_initcheck.log" | tail -1) $(grep -E '^test result' "$OUT/san_initcheck.log") $(( $(date +%s) - t0 ))s"
F=()
for f in sdecho3_b1_q11_kv1024 sdecho3_b8_q1_kv3000 sdec_b8_q1_kv384 sdecho_b1_q15_kv768 sdec_b3_q4_kv384 \
  sdec_b4_q10_kv512 sdec_b1_q1_kv4096 sdecho3_b2_q9_kv384 sdecho_b6_q7_kv512 sdecho2_b2_q9_kv768 wide_prefix3 wide_prefix5; do F+=(--filter $f); done
C=(auto=$P)
for s in auto 1 2 4; do C+=(m64s$s=$P@--tile=m64,--split=$s); done
for s in 1 2 4 8; do C+=(dvs$s=$P@--tile=m128dv,--split=$s); done
for s in 2 4; do C+=(ds$s=$P@--tile=m128d,--split=$s); done
AB_TIMEOUT=60 OUT=$OUT/sweep bash scripts/device-ab.sh "${C[@]}" -- "${W[@]}" "${F[@]}" > "$OUT/sweep.txt" 2>&1
echo "sweep $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$OUT/sweep.txt" | grep -v "rc=0"
python3 - "$OUT/ab.txt" <<'PY'
import sys, math
rows=[l.split('|')[1:-1] for l in open(sys.argv[1]) if l.startswith('| ') and not l.startswith('| workload')]
n=['memohost','dev','memodev','missdev']
t=[[float(c.split()[0]) for c in r[1:5]] for r in rows]
med=lambda xs: sorted(xs)[len(xs)//2]
g=lambda xs: math.exp(sum(map(math.log,xs))/len(xs))
def cmp(a,b,sel=lambda r: True,label='all'):
    xs=[x for r,x in zip(rows,t) if sel(r)]
    print('%-5s %-8s/%-8s geomean %.4f median %+.2f us max %+.2f min %+.2f n %d' % (label, n[a], n[b], g([x[a]/x[b] for x in xs]), med([x[a]-x[b] for x in xs]), max(x[a]-x[b] for x in xs), min(x[a]-x[b] for x in xs), len(xs)))
seed=lambda r: r[0].strip().startswith('seed')
for a,b in [(1,0),(2,0),(2,1),(3,1)]: cmp(a,b); cmp(a,b,seed,'seed')
for r,x in zip(rows,t):
    if r[0].strip().startswith('seed1') or r[0].strip() in ('sdec_b1_q1_kv1024','sdecho3_b1_q11_kv1024','sdec_b32_q5_kv4096'): print('%-22s ' % r[0].strip() + ' '.join('%s %5.1f' % (a,b) for a,b in zip(n,x)))
PY
grep -E "^\| " "$OUT/sweep.txt" | cut -c1-400
