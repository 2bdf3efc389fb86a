#!/usr/bin/env bash
# Call 7 (twenty-ninth session): the plan memo (the warp-built plan's split
# size kept in the workspace, keyed by the call's lengths: a call whose
# lengths repeat skips the search). (1) GPU tests (with
# plan_memo_hits_match_the_search); (2) memcheck, racecheck and synccheck
# over that test (hits, misses, replaced entries, graph replays); (3) A/B,
# two rounds, the 145 calls of call 1: edca88e (base.cubin) host and
# device plans, this build host and device, and memomiss (this build with
# the key never matching: every call pays the miss path, as graph replays
# with new lengths do), device plan. Carry ["dist"].
# Builds: dist/ by scripts/dist.sh on the memo tree; dist/var/base.cubin:
# edca88e's kernels; memomiss.cubin: the memo tree with `key.x == kKey0 + 1`
# (`scripts/variant-src.py memomiss`).
set -u
for d in /usr/local/cuda/bin /usr/local/cuda/compute-sanitizer; do [ -d "$d" ] && PATH="$PATH:$d"; done
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files ab *.log 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
W=()
for m in short-decode short-decode-holdout short-decode-holdout2 short-decode-holdout3; do
  python3 scripts/make-sweep-workloads.py --$m dist/$m.jsonl > /dev/null; W+=(--workloads dist/$m.jsonl); done
python3 scripts/make-shapes-workloads.py --wide dist/wide.jsonl > /dev/null
W+=(--workloads dist/wide.jsonl --workloads dist/split.jsonl --workloads dist/seed.jsonl)
P=dist/pagedattn
TESTS_TIMEOUT=200 bash scripts/device-run.sh tests > "$OUT/tests.log" 2>&1
grep -E "^gpu tests|spread merge:|plan memo:" "$OUT/tests.log" "$OUT/gpu_tests.log" | head; grep -E "panicked" "$OUT/gpu_tests.log" | head -5
echo "tests $(( $(date +%s) - t0 ))s"
for tool in memcheck racecheck synccheck; do
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 dist/gpu_tests plan_memo --include-ignored --test-threads=1 > "$OUT/san_${tool}.log" 2>&1
  echo "$tool rc=$? $(grep -E 'SUMMARY' "$OUT/san_${tool}.log" | tail -1) $(grep -E '^test result' "$OUT/san_${tool}.log") $(( $(date +%s) - t0 ))s"
done
AB_ROUNDS=2 AB_TIMEOUT=120 OUT=$OUT/ab bash scripts/device-ab.sh host=$P@--attention-cubin=dist/var/base.cubin \
  dev=$P@--plan=device,--attention-cubin=dist/var/base.cubin memohost=$P memodev=$P@--plan=device \
  missdev=$P@--plan=device,--attention-cubin=dist/var/memomiss.cubin -- "${W[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$OUT/ab.txt" | grep -v "rc=0"; grep -E "output bits" "$OUT/ab.txt" | cut -c1-400
python3 - "$OUT/ab.txt" <<'PY'
import sys, math
rows=[l.split('|')[1:-1] for l in open(sys.argv[1]) if l.startswith('| ') and not l.startswith('| workload')]
n=['host','dev','memohost','memodev','missdev']
t=[[float(c.split()[0]) for c in r[1:6]] for r in rows]
med=lambda xs: sorted(xs)[len(xs)//2]
g=lambda xs: math.exp(sum(map(math.log,xs))/len(xs))
def cmp(a,b,sel=lambda r: True,label='all'):
    xs=[x for r,x in zip(rows,t) if sel(r)]
    print('%-5s %-8s/%-8s geomean %.4f median %+.2f us n %d' % (label, n[a], n[b], g([x[a]/x[b] for x in xs]), med([x[a]-x[b] for x in xs]), len(xs)))
seed=lambda r: r[0].strip().startswith('seed')
for a,b in [(2,0),(1,0),(3,0),(3,1),(4,1),(3,2)]: cmp(a,b); cmp(a,b,seed,'seed')
for r,x in zip(rows,t):
    if r[0].strip().startswith('seed1') or r[0].strip() in ('sdec_b1_q1_kv1024','sdecho3_b1_q11_kv1024','sdec_b32_q5_kv4096'): print('%-22s ' % r[0].strip() + ' '.join('%s %5.1f' % (a,b) for a,b in zip(n,x)))
PY
