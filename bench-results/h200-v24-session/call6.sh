#!/usr/bin/env bash
# Eighteenth session, call 6 (carry ["dist"]: dist of the final tree with
# dist/wheels from scripts/build-wheel.sh and decode.jsonl).
# Part 1: the Python package's GPU tests on the final wheel (the model rule;
# long_prefix is now 256 queries over 16384 keys, which it gives to m192).
# Part 2: the tile configurations forced on calls of few queries a
# sequence (m64 takes every call under 16 queries; the decode-like rows of
# 16-64 take m128d), two rounds, no code change.
#   Prediction: m64 best on the 1-16-query rows (as the fourth session
#   measured on cached prefixes), m128d within 3% of the best on the
#   decode-like rows.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files tc *.log *.xml 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
B=dist/pagedattn
SITE=/tmp/site; mkdir -p $SITE
python3 -m pip install -q --no-index --no-deps --target $SITE dist/wheels/pagedattn-*.whl > "$OUT/pip.log" 2>&1; echo "pip rc=$?"
(cd crates/pagedattn-py && PYTHONPATH=$SITE timeout 300 python3 -m pytest -q -rs tests/test_gpu.py --junitxml="$OUT/pytest.xml") > "$OUT/pytest.log" 2>&1
echo "pytest rc=$? $(tail -1 "$OUT/pytest.log")"; grep -E "FAILED|Error" "$OUT/pytest.log" | head -8
echo "pytest $(( $(date +%s) - t0 ))s"
AB_ROUNDS=2 AB_TIMEOUT=100 OUT=$OUT/tc bash scripts/device-ab.sh auto=$B m64=$B@--tile=m64 m128=$B@--tile=m128 \
  m128dv=$B@--tile=m128dv m128d=$B@--tile=m128d \
  -- --workloads dist/shapes.jsonl --workloads dist/prefix.jsonl --filter tiny_ --filter prefix_q16 --filter prefix_q32 \
  --filter prefix_q64_kv4096 --filter prefix_b1_q64 > "$OUT/tiles.txt" 2>&1
sed -n '/^| workload/,$p' "$OUT/tiles.txt" | head -16
