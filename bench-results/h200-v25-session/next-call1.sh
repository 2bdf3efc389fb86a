#!/usr/bin/env bash
# Prepared for the next session (not run): BENCHMARKS "Next candidates",
# nineteenth 3. Carry ["dist"]: main's dist (scripts/dist.sh; leave out
# gpu_tests, gpu_reliability, example_gpu, attention.cubin and the big sets
# for the size limit) with
#   python3 scripts/make-sweep-workloads.py --decode dist/decode-sweep.jsonl
#   python3 scripts/make-sweep-workloads.py --decode-holdout dist/decode-holdout.jsonl
# (~15 MB together). The tile configurations forced on decode-like calls,
# two rounds, to fit a rule for m64 against the 128-row tiles on the first
# set and check it on the second. About 3 minutes.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files ab 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
B=dist/pagedattn
AB_ROUNDS=2 AB_TIMEOUT=200 OUT=$OUT/ab bash scripts/device-ab.sh auto=$B m128dv=$B@--tile=m128dv m128=$B@--tile=m128 \
  m128d=$B@--tile=m128d -- --workloads dist/decode-sweep.jsonl --workloads dist/decode-holdout.jsonl > "$OUT/tiles.txt" 2>&1
mkdir -p "$OUT/j" && cp "$OUT"/ab/*.json "$OUT/j/" 2>/dev/null; (cd "$OUT" && tar czf json.tgz j && rm -rf j)
sed -n '/^| workload/,$p' "$OUT/tiles.txt"
