#!/bin/bash
# The Python package on the GPU machine (no network, no Rust), from the repo root:
# installs the carried wheels into $SITE (default /tmp/site) and runs steps by name:
#   bash scripts/device-python.sh pytest overhead dense suite [-- run_suite.py args]
#   pytest    crates/pagedattn-py/tests (GPU tests on the H200; FlashInfer comparison)
#   overhead  bench/python/host_overhead.py (host time of the Python call vs the Rust launch)
#   dense     bench/python/dense_anchor.py (PyTorch SDPA, cuDNN and flash backends, on the
#             long rows without paging: the dense anchor of the main-loop issue)
#   suite     bench/flashinfer-bench/run_suite.py (FlashInfer-Bench's benchmark + evaluator,
#             ours and FlashInfer's wrapper baseline in one call)
# Carried (git-ignored) paths it needs: dist/wheels (scripts/build-wheel.sh), .whl and
# .peers/flashinfer (bench/flashinfer-bench/fetch_wheels.sh). FIB=main (default) | 0.1.2
# picks the flashinfer-bench version. Logs and JSON go to $OUT (default /tmp/out).
set -u
R=$(cd "$(dirname "$0")/.." && pwd)
cd "$R"
OUT=${OUT:-/tmp/out}
SITE=${SITE:-/tmp/site}
FIB=${FIB:-main}
mkdir -p "$OUT" "$SITE"
export PYTHONUNBUFFERED=1
t0=$(date +%s)
summary=()
steps=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do steps+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift

echo "=== install into $SITE ($(date +%T))"
case "$FIB" in
  main) fib=$(ls .whl/flashinfer_bench-0.1.3.dev0*.whl) ;;
  0.1.2) fib=$(ls .whl/flashinfer_bench-0.1.2-*.whl) ;;
  *) echo "FIB must be main or 0.1.2" >&2; exit 2 ;;
esac
deps=$(ls .whl/*.whl | grep -v '/flashinfer_bench-')
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$SITE" \
  $fib $deps dist/wheels/pagedattn-*.whl .peers/flashinfer/pkgs/*.whl || exit 3
SITE="$SITE" python3 - <<'PY' || exit 4
import os, tarfile
site = os.environ["SITE"]
tarfile.open(".peers/flashinfer/pkgs/flashinfer_trim.tar.xz").extractall(site)
os.makedirs(f"{site}/flashinfer/data/aot", exist_ok=True)
tarfile.open(".peers/flashinfer/pkgs/aot_so.tar.xz").extractall(f"{site}/flashinfer/data/aot")
PY
export PYTHONPATH=$SITE${PYTHONPATH:+:$PYTHONPATH}
# FlashInfer: no JIT (its two prebuilt modules are installed as AOT artifacts).
export FLASHINFER_DISABLE_JIT=1 FLASHINFER_WORKSPACE_BASE=/tmp/fiws FLASHINFER_CUDA_ARCH_LIST="9.0a"
export FLASHINFER_LOGGING_LEVEL=WARNING FIB_CACHE_PATH=/tmp/fib_cache
python3 -c "
import torch, pagedattn
i = pagedattn.build_info()
print('pagedattn', i['version'], i['commit'], 'kernels', i['kernels'], '| torch', torch.__version__, '|', torch.cuda.get_device_name(0))
" || exit 5

for s in "${steps[@]}"; do
  echo; echo "=== $s ($(date +%T))"
  case "$s" in
    pytest)
      (cd crates/pagedattn-py && python3 -m pytest -q -rs tests --junitxml="$OUT/pytest.xml") 2>&1 | tee "$OUT/pytest.log"
      rc=${PIPESTATUS[0]}; summary+=("pytest rc=$rc: $(tail -1 "$OUT/pytest.log")") ;;
    overhead)
      OUT="$OUT" python3 bench/python/host_overhead.py 2>&1 | tee "$OUT/host_overhead.log"
      rc=${PIPESTATUS[0]}; summary+=("overhead rc=$rc: $(grep '=>' "$OUT/host_overhead.log" | tr '\n' ' ')") ;;
    dense)
      OUT="$OUT" python3 bench/python/dense_anchor.py 2>&1 | tee "$OUT/dense_anchor.log"
      rc=${PIPESTATUS[0]}; summary+=("dense rc=$rc: $(grep -E '^\| scale' "$OUT/dense_anchor.log" | tr '\n' ' ')") ;;
    suite)
      python3 bench/flashinfer-bench/run_suite.py --out "$OUT/suite" "$@" 2>&1 | tee "$OUT/suite.log"
      rc=${PIPESTATUS[0]}; summary+=("suite rc=$rc: $(grep -m1 'PASSED' "$OUT/suite/suite_results.md" 2>/dev/null) geomean $(grep geomean "$OUT/suite/suite_results.md" 2>/dev/null)") ;;
    *) echo "unknown step $s"; summary+=("unknown step $s") ;;
  esac
done
echo; echo "=== summary ($(( $(date +%s) - t0 ))s)"
printf '%s\n' "${summary[@]}"
