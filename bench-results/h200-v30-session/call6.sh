#!/usr/bin/env bash
# Call 6 (twenty-fourth session): d370ebf (the one-wave chunk cost for
# configurations of at most two consumer warpgroups only; m192 spill-free
# again). (1) the GPU tests; (2) host against device plan on the 50 short
# calls and wide_prefix3, automatic and m192 forced (output bits);
# (3) v17.6 against this build on prefix and seed, two rounds.
# Carry ["dist"].
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files abp abq abm *.log 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
P=dist/pagedattn
TESTS_TIMEOUT=200 bash scripts/device-run.sh tests > "$OUT/tests.log" 2>&1
grep -E "^gpu tests" "$OUT/tests.log"; grep -E "panicked" "$OUT/gpu_tests.log" | head -5
echo "tests $(( $(date +%s) - t0 ))s"
W=(--workloads dist/sdfrag.jsonl --workloads dist/wp3.jsonl)
AB_TIMEOUT=60 OUT=$OUT/abp bash scripts/device-ab.sh host=$P dev=$P@--plan=device -- "${W[@]}" > "$OUT/abp.txt" 2>&1
AB_TIMEOUT=60 OUT=$OUT/abq bash scripts/device-ab.sh m192=$P@--tile=m192 m192dev=$P@--tile=m192,--plan=device \
  -- "${W[@]}" --workloads dist/prefix.jsonl > "$OUT/abq.txt" 2>&1
echo "plans $(( $(date +%s) - t0 ))s"; grep -h "rc=" "$OUT/abp.txt" "$OUT/abq.txt" | grep -v "rc=0"; grep -h "output bits" "$OUT/abp.txt" "$OUT/abq.txt"
AB_ROUNDS=2 AB_TIMEOUT=90 OUT=$OUT/abm bash scripts/device-ab.sh base=dist/base-pagedattn new=$P \
  -- --workloads dist/seed.jsonl --workloads dist/prefix.jsonl > "$OUT/abm.txt" 2>&1
echo "main $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$OUT/abm.txt" | grep -v "rc=0" | head; sed -n '/^| workload/,$p' "$OUT/abm.txt" | grep -E "prefix|geomean|bits"
mkdir -p "$OUT/j" && for d in abp abq abm; do for f in "$OUT"/$d/*.json; do [ -f "$f" ] && cp "$f" "$OUT/j/$d-$(basename "$f")"; done; done
(cd "$OUT" && tar czf json.tgz j && rm -rf j)
