#!/bin/bash
# On the GPU machine, from the repo root: FlashInfer-Bench's benchmark + evaluator for
# pagedattn and FlashInfer's wrapper baseline in one call (run_suite.py), after installing
# the carried wheels (scripts/device-python.sh does both; results in $OUT/suite).
#   bash bench/flashinfer-bench/device_run.sh [run_suite.py args, e.g. --only seed00 seed02]
exec bash "$(dirname "$0")/../../scripts/device-python.sh" suite -- "$@"
