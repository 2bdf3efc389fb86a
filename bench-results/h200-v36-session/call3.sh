#!/usr/bin/env bash
# Call 3 (thirtieth session): the decode rule refitted on call 2 (below 11
# queries a sequence m64 wherever its split cuts a tile; from 11 queries
# m128dv up to 64 sequences). (1) GPU tests; (2) A/B, host plan, two
# rounds: 32f718e's binary (dist/old/pagedattn) against this tree's, over
# the two fresh draws drawn after the fit (--short-decode-holdout4,
# --decode-holdout4: 40 calls), call 2's 148 decode-like calls, the wide
# draw, the split set and the seed set; (3) the same two binaries under
# the device plan (the rule on the mean lengths), one round, over the
# decode-like draws. Carry ["dist"]. Kernels unchanged (the cubin is
# 32f718e's).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files ab dev *.log 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
D=()
for m in short-decode-holdout4 decode-holdout4 short-decode short-decode-holdout short-decode-holdout2 short-decode-holdout3 row-decode decode-holdout decode-holdout2 decode-holdout3; do
  python3 scripts/make-sweep-workloads.py --$m dist/$m.jsonl > /dev/null; D+=(--workloads dist/$m.jsonl); done
python3 scripts/make-shapes-workloads.py --wide dist/wide.jsonl > /dev/null
TESTS_TIMEOUT=200 bash scripts/device-run.sh tests > "$OUT/tests.log" 2>&1
grep -E "^gpu tests" "$OUT/tests.log" "$OUT/gpu_tests.log" | head -3; grep -E "panicked" "$OUT/gpu_tests.log" | head -5
echo "tests $(( $(date +%s) - t0 ))s"
AB_ROUNDS=2 AB_TIMEOUT=150 OUT=$OUT/ab bash scripts/device-ab.sh old=dist/old/pagedattn new=dist/pagedattn -- \
  "${D[@]}" --workloads dist/wide.jsonl --workloads dist/split.jsonl --workloads dist/seed.jsonl > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$OUT/ab.txt" | grep -v "rc=0"; grep -E "geomean|output bits" "$OUT/ab.txt" | cut -c1-300
AB_TIMEOUT=150 OUT=$OUT/dev bash scripts/device-ab.sh olddev=dist/old/pagedattn@--plan=device newdev=dist/pagedattn@--plan=device -- "${D[@]}" > "$OUT/dev.txt" 2>&1
echo "dev $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$OUT/dev.txt" | grep -v "rc=0"; grep -E "geomean" "$OUT/dev.txt"
for f in ab dev; do grep -E "^\| " "$OUT/$f.txt" | awk -F'|' '{split($3,a," ");split($4,b," "); if (a[1]>0 && (b[1]/a[1]>1.02 || b[1]/a[1]<0.98)) print FILENAME": "$2, a[1], b[1]}' FILENAME=$f; done
