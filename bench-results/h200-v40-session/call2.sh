#!/usr/bin/env bash
# Call 2 (thirty-seventh session): the checks on 1ef08c7's build (GPU tests,
# reliability, the four sanitizers under both plans). Carry ["dist"]
# (compressed binaries, scripts/device-unpack.sh).
set -u
bash scripts/device-unpack.sh
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
TESTS_TIMEOUT=150 REL_TIMEOUT=90 SANITIZERS="memcheck racecheck synccheck initcheck" SAN_TIMEOUT=45 \
  timeout 400 bash scripts/device-run.sh tests reliability sanitize-plans > "$OUT/checks.txt" 2>&1
echo "checks rc=$? $(( $(date +%s) - t0 ))s"
sed -n '/^=== summary/,$p' "$OUT/checks.txt"
