#!/usr/bin/env bash
# Eighteenth session, call 3 (carry ["dist", "dist-main"]: dist of 9873bff's tree with
# gpu_tests, dist/wheels (scripts/build-wheel.sh), decode.jsonl,
# holdout3.jsonl and dist/var/nol2.cubin; dist-main/pagedattn of 58d2020).
# Part 1: the GPU tests on the refitted choice (host code only: the kernels
# are the same as v17.0's).
# Part 2: the Python package's GPU tests (pagedattn wheel alone, no
# FlashInfer: its comparisons skip), never yet run with the long_prefix
# case (m192).
# Part 3: the refitted prefers_m192 on a third held-out set
# (`make-sweep-workloads.py --holdout3`: 18 calls it can take or nearly;
# it takes 11), three rounds: 58d2020's CLI, this build, m192 forced.
#   Prediction: the 11 picked 0.70-0.95 (as on holdout2's wins), the other
#   7 bitwise equal to 58d2020.
# Part 4: nol2 (K/V rows zero-filled instead of read: no K/V bytes moved;
# page ids still loaded) on the decode-like rows, two rounds: the share of
# their time that is the K/V stream.
#   Prediction (unitcost, call 2: 4734 cycles a block under load against
#   2973 alone): nol2 30-40% faster on prefix_q16_kv4096_b8.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files n2 h3 *.log *.xml 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
B=dist/pagedattn
timeout 300 dist/gpu_tests --include-ignored --test-threads=1 > "$OUT/gpu_tests.log" 2>&1
echo "gpu_tests rc=$? $(grep -E '^test result' "$OUT/gpu_tests.log")"; grep -E "FAILED|panicked" "$OUT/gpu_tests.log" | head
echo "tests $(( $(date +%s) - t0 ))s"
SITE=/tmp/site; mkdir -p $SITE
python3 -m pip install -q --no-index --no-deps --target $SITE dist/wheels/pagedattn-*.whl > "$OUT/pip.log" 2>&1; echo "pip rc=$?"
(cd crates/pagedattn-py && PYTHONPATH=$SITE timeout 300 python3 -m pytest -q -rs tests/test_gpu.py --junitxml="$OUT/pytest.xml") > "$OUT/pytest.log" 2>&1
echo "pytest rc=$? $(tail -1 "$OUT/pytest.log")"; grep -E "long_prefix|FAILED|SKIPPED" "$OUT/pytest.log" | head -12
echo "pytest $(( $(date +%s) - t0 ))s"
AB_ROUNDS=3 AB_TIMEOUT=150 OUT=$OUT/h3 bash scripts/device-ab.sh main=dist-main/pagedattn new=$B "m192=$B@--tile=m192" \
  -- --workloads dist/holdout3.jsonl > "$OUT/holdout3.txt" 2>&1
grep -vE "^\s*$" "$OUT/holdout3.txt" | grep -v "rc=0" | grep -v "^|"
echo "holdout3 $(( $(date +%s) - t0 ))s"
AB_ROUNDS=2 AB_TIMEOUT=120 OUT=$OUT/n2 bash scripts/device-ab.sh new=$B "nol2=$B@--attention-cubin=dist/var/nol2.cubin,--no-check" \
  -- --workloads dist/decode.jsonl > "$OUT/nol2.txt" 2>&1
sed -n '/^| workload/,$p' "$OUT/nol2.txt" | head -14
echo "--- holdout3"; sed -n '/^| workload/,$p' "$OUT/holdout3.txt" | head -24
