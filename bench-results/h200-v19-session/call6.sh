#!/usr/bin/env bash
# Thirteenth session, call 6 (carry ["dist", ".peers", ".whl"]; the last
# 133 s of device time, on the machine call 5 left warm): k2v3's checks as
# far as they went: the GPU tests (70 s limit: cut inside the split test,
# nothing failed before it) and memcheck and racecheck through both plans
# (20 s each; the host plan's racecheck cut by the call's limit).
PAGEDATTN_ATTENTION_CUBIN=dist/var/k2v3.cubin TESTS_TIMEOUT=70 SANITIZERS="memcheck racecheck" \
  SAN_CUBIN=dist/var/k2v3.cubin SAN_TIMEOUT=20 timeout 110 bash scripts/device-run.sh tests sanitize-plans \
  > $OUT/checks.txt 2>&1
sed -n '/^=== summary/,$p' $OUT/checks.txt
