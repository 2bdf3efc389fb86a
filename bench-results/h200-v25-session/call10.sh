#!/usr/bin/env bash
# Nineteenth session, call 10 (carry ["dist"]: the final tree's dist,
# trimmed): memcheck and racecheck over split.jsonl (now with two calls
# whose tiles merge by rows) and 6 generated batches, through the device and
# the host plan. Result: 26 workloads ok, 0 errors, 0 hazards, each.
SANITIZERS="memcheck racecheck" SAN_TIMEOUT=50 bash scripts/device-run.sh sanitize-plans
