#!/usr/bin/env bash
# Prepared for the next session (not run): BENCHMARKS "Next candidates",
# twentieth 3. Carry ["dist"]: main's dist (scripts/dist.sh; leave out
# gpu_tests, gpu_reliability, example_gpu, attention.cubin and the big sets
# for the size limit) with
#   python3 scripts/make-sweep-workloads.py --decode2 dist/decode-sweep2.jsonl
# (~10 MB). The decode rule's edges (6-10 queries a sequence; 33-128
# sequences): auto against m64, m128dv and m128 forced, one round (~1
# minute on the GPU). Then a fresh draw before moving a limit.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files ab 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
B=dist/pagedattn
AB_ROUNDS=1 AB_TIMEOUT=60 OUT=$OUT/ab bash scripts/device-ab.sh auto=$B m64=$B@--tile=m64 m128dv=$B@--tile=m128dv \
  m128=$B@--tile=m128 -- --workloads dist/decode-sweep2.jsonl > "$OUT/tiles.txt" 2>&1
mkdir -p "$OUT/j" && cp "$OUT"/ab/*.json "$OUT/j/" 2>/dev/null; (cd "$OUT" && tar czf json.tgz j && rm -rf j)
sed -n '/^| workload/,$p' "$OUT/tiles.txt"
