#!/usr/bin/env bash
# Call 1: the split tiles' arrival and merge. base = v17.8 (d5fac24's
# kernels); arr = its host code with the arrival as one thread's acq_rel
# atomic after the warpgroup's barrier (dist/var/arr.cubin); new = this
# tree's build (arr, and the merge by fragments: warps with no real row
# neither store nor merge, two chunks merged from this chunk's registers and
# the other's slot). (1) GPU tests on new; (2) base / arr / new, two rounds,
# on every split call of the four short-decode draws, the serving and wide
# draws and the split and prefix sets (generated here; dist/splitnames.txt),
# and the seed set; (3) the four sanitizers over eight split calls of every
# merge path. Carry ["dist"].
set -u
for d in /usr/local/cuda/bin /usr/local/cuda/compute-sanitizer; do [ -d "$d" ] && PATH="$PATH:$d"; done
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files ab *.log 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
for m in --short-decode --short-decode-holdout --short-decode-holdout2 --short-decode-holdout3; do
  python3 scripts/make-sweep-workloads.py $m /tmp/w$m.jsonl > /dev/null; done
python3 scripts/make-shapes-workloads.py --serving /tmp/serving.jsonl > /dev/null
python3 scripts/make-shapes-workloads.py --wide /tmp/wide.jsonl > /dev/null
python3 - <<'PY'
import json
names = set(open('dist/splitnames.txt').read().split()); seen = set()
with open('dist/splitcalls.jsonl', 'w') as out:
    for f in ['/tmp/w--short-decode.jsonl', '/tmp/w--short-decode-holdout.jsonl', '/tmp/w--short-decode-holdout2.jsonl',
              '/tmp/w--short-decode-holdout3.jsonl', '/tmp/serving.jsonl', '/tmp/wide.jsonl', 'dist/split.jsonl', 'dist/prefix.jsonl']:
        for line in open(f):
            n = json.loads(line)['name']
            if n in names and n not in seen: seen.add(n); out.write(line)
print(len(seen), 'split calls of', len(names))
PY
echo "workloads $(( $(date +%s) - t0 ))s"
P=dist/pagedattn
TESTS_TIMEOUT=150 bash scripts/device-run.sh tests > "$OUT/tests.log" 2>&1
grep -E "^gpu tests|spread merge:" "$OUT/tests.log" | head; grep -E "panicked" "$OUT/gpu_tests.log" | head -5
echo "tests $(( $(date +%s) - t0 ))s"
W="--workloads dist/splitcalls.jsonl --workloads dist/seed.jsonl"
AB_ROUNDS=2 AB_TIMEOUT=150 OUT=$OUT/ab bash scripts/device-ab.sh base=dist/base-pagedattn arr=dist/base-pagedattn@--attention-cubin=dist/var/arr.cubin new=$P -- $W > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$OUT/ab.txt" | grep -v "rc=0"; grep -E "^geomean|output bits" "$OUT/ab.txt" | cut -c1-300
for tool in memcheck synccheck initcheck racecheck; do
  timeout 80 compute-sanitizer --tool $tool --error-exitcode 9 $P check --backend cuda --cpu-ref-max-pairs 0 --workloads dist/splitcalls.jsonl \
    --filter prefix_q32_kv4096_b8 --filter prefix_q128_kv4096_b4 --filter prefix_q16_kv4096_b8 --filter sdec_b32_q5_kv4096 \
    --filter sdecho3_b24_q4_kv2048 --filter sdec_b3_q1_kv512 --filter sdecho3_b2_q3_kv1536 --filter sdecho2_b12_q13_kv3000 > "$OUT/san_$tool.log" 2>&1
  echo "$tool rc=$? $(grep -E 'SUMMARY' "$OUT/san_$tool.log" | tail -1) $(grep -cE 'Race reported|Error:|Hazard' "$OUT/san_$tool.log") reports; $(grep -E '^[0-9]+ workloads?:' "$OUT/san_$tool.log") $(( $(date +%s) - t0 ))s"
done
sed -n '/^| workload/,$p' "$OUT/ab.txt" | grep -v "output bits" | cut -c1-110
