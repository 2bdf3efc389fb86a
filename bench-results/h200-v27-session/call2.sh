#!/usr/bin/env bash
# Call 2: the spread merge with the automatic split's spread candidates
# (chunks of 512 keys and up to 64 chunks whatever the rows, where the call
# is one wave). (1) The GPU tests; (2) the decode rule against the spread
# merge: auto (the rule as it is) against m64 and m128dv forced on the four
# decode sweeps (generated here), one round. Carry ["dist"].
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files ab *.log 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
B=dist/pagedattn
for m in --decode --decode-holdout --decode-holdout2 --decode2; do
  python3 scripts/make-sweep-workloads.py $m /tmp/sweep$m.jsonl > /dev/null
done
TESTS_TIMEOUT=240 bash scripts/device-run.sh tests > "$OUT/tests.log" 2>&1
grep -E 'panicked|differs' "$OUT/tests.log" | head; grep -E "^gpu tests" "$OUT/tests.log"; grep -E "spread merge:|^test result" "$OUT/gpu_tests.log"
W=(); for m in --decode --decode-holdout --decode-holdout2 --decode2; do W+=(--workloads /tmp/sweep$m.jsonl); done
AB_ROUNDS=1 AB_TIMEOUT=150 OUT=$OUT/ab bash scripts/device-ab.sh auto=$B m64=$B@--tile=m64 m128dv=$B@--tile=m128dv \
  -- "${W[@]}" --workloads dist/serving.jsonl --filter long_b1 --filter decode --filter spec > "$OUT/ab.txt" 2>&1
mkdir -p "$OUT/j" && cp "$OUT"/ab/*.json "$OUT/j/" 2>/dev/null; (cd "$OUT" && tar czf json.tgz j && rm -rf j)
grep -E 'rc=' "$OUT/ab.txt"; sed -n '/^| workload/,$p' "$OUT/ab.txt"
