#!/usr/bin/env bash
# Fifteenth session, call 11 (carry ["dist"]; the last 125 s of device time,
# the machine of call 10 still warm): the GPU tests and reliability with
# updownd's cubin, run as one command line:
PAGEDATTN_ATTENTION_CUBIN=dist/var/updownd.cubin TESTS_TIMEOUT=100 REL_TIMEOUT=20 \
  bash scripts/device-run.sh tests reliability > "${OUT:-/tmp/out}/checks.txt" 2>&1
# Result: GPU tests 13/13; reliability cut by its 20 s limit (rc=124).
