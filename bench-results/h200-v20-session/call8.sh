#!/usr/bin/env bash
# Fourteenth session, call 8 (carry ["dist/wheels"]): calls 6 and 7 found
# scale_single_8192 at 657-728 us and scale_batch16x2048 at 759-873 us
# across processes, at steady clocks and with the same inputs. Within one
# process, bench/python/placement_probe.py allocates each row's buffers
# afresh ten times (a random padding allocation before each set) and times
# each placement. Prediction: if the placement of the buffers sets the time,
# the spread shows within this process too.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site dist/wheels/*.whl
PYTHONPATH=/tmp/site timeout 240 python3 bench/python/placement_probe.py --placements 10 | tee "$OUT/probe.md"
