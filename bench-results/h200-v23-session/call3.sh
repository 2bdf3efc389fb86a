#!/usr/bin/env bash
# Seventeenth session, call 3 (carry ["dist", "dist-main"]; about 6
# minutes): m192 chosen by TileConfig::choose (prefers_m192: few queries
# over a long cached prefix, from call 2's 26 shapes) before it ships.
# dist: main + m192.patch + the rule; dist-main: main's CLI (58d2020).
# Checks: GPU tests with auto (the prefix shapes of the tests now take
# m192) and with m192 forced, reliability with m192 forced, the four
# sanitizers over both plans with m192 forced.
# Timing: three rounds, the new auto against main's, on prefix.jsonl and
# the sweep. Prediction: the rows prefers_m192 picks (6 of prefix.jsonl,
# 9 of the sweep) 0.76-0.95 as in call 2; every other row bitwise equal
# and within noise (the other kernels differ from main's only in their
# named-barrier ids).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf /tmp/logs.tgz --exclude="*.csv" . && mv /tmp/logs.tgz logs.tgz && find . -type f ! -name logs.tgz -delete)' EXIT
TESTS_TIMEOUT=200 OUT=$OUT/auto bash scripts/device-run.sh tests > "$OUT/auto-tests.txt" 2>&1
echo "[auto tests] $(sed -n '/^=== summary/,$p' "$OUT/auto-tests.txt" | tail -n +2) $(( $(date +%s) - t0 ))s"
grep -hE "panicked|differs" "$OUT"/auto/gpu_tests.log | head -5
PAGEDATTN_TILE=m192 TESTS_TIMEOUT=200 REL_TIMEOUT=90 SANITIZERS="memcheck racecheck synccheck initcheck" \
  SAN_EXTRA="--tile m192" SAN_TIMEOUT=60 OUT=$OUT/m192 bash scripts/device-run.sh tests reliability sanitize-plans > "$OUT/m192-checks.txt" 2>&1
echo "[m192 forced] $(( $(date +%s) - t0 ))s"; sed -n '/^=== summary/,$p' "$OUT/m192-checks.txt" | tail -n +2
grep -hE "panicked|differs" "$OUT"/m192/gpu_tests.log | head -5
AB_ROUNDS=3 AB_TIMEOUT=120 OUT=$OUT/ab bash scripts/device-ab.sh main=dist-main/pagedattn new=dist/pagedattn \
  -- --workloads dist/prefix.jsonl --workloads dist/sweep.jsonl > "$OUT/ab.txt" 2>&1
grep -vE "^\s*$" "$OUT/ab.txt" | grep -v "rc=0"
echo "total $(( $(date +%s) - t0 ))s"
