#!/usr/bin/env bash
# Nineteenth session, call 5 (carry ["dist"]; dist/rows.jsonl from
# make-rows.py): call 4's build with the lse rows of the by-rows layout at the
# fragments' stride (call 4: a tile whose two warpgroups took different
# layouts wrote one's lse over another slot's; 3 GPU tests failed). The
# GPU tests, the rows set through every forced configuration and split, and
# four sanitizers on by-rows splits.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap 'cd "$OUT" && tar czf logs.tgz --remove-files t san *.log 2>/dev/null; echo "total $(( $(date +%s) - t0 ))s"' EXIT
B=dist/pagedattn
TESTS_TIMEOUT=200 OUT=$OUT/t bash scripts/device-run.sh tests > "$OUT/tests.log" 2>&1
echo "tests $(( $(date +%s) - t0 ))s: $(grep -E 'gpu tests rc' "$OUT/tests.log")"; grep -E "FAILED|panicked|differs" "$OUT/t/gpu_tests.log" | head -5
mkdir -p "$OUT/san"
for tile in m64 m128 m128d m128dv m192; do
  for split in auto 2 4 16; do
    for plan in host device; do
      r=$($B check --backend cuda --workloads dist/rows.jsonl --workloads dist/split.jsonl --tile $tile --split $split --plan $plan 2>&1 | grep -E "workloads?:")
      case "$r" in *FAIL*|"") echo "check $tile split $split $plan: ${r:-no summary}";; esac
    done
  done
done
echo "checks done $(( $(date +%s) - t0 ))s (only failures printed)"
for tool in memcheck initcheck racecheck synccheck; do
  for tile in m64 m128dv; do
    timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B check --backend cuda --cpu-ref-max-pairs 0 \
      --workloads dist/rows.jsonl --tile $tile --split 4 > "$OUT/san/$tool-$tile.log" 2>&1
    echo "$tool $tile rc=$? $(grep -E 'SUMMARY' "$OUT/san/$tool-$tile.log" | tail -1)"
  done
done
