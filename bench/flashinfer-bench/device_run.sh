#!/bin/bash
# On the GPU machine, from the repo root (no network there): installs the carried
# wheels into /tmp/site and runs FlashInfer-Bench's benchmark + evaluator for
# pagedattn and FlashInfer's wrapper baseline in one call (run_suite.py).
#   bash bench/flashinfer-bench/device_run.sh [run_suite.py args]
# Needs in the carried tree: dist/wheels/pagedattn-*.whl (scripts/build-wheel.sh),
# .whl/ (bench/flashinfer-bench/fetch_wheels.sh) and .peers/flashinfer/pkgs/
# (FlashInfer's trimmed package, its two prebuilt modules, tvm-ffi and cupti-python).
# FIB=main (default: flashinfer-bench at git 40e6ca78, CUPTI timing, the protocol the
# issue describes) or FIB=0.1.2 (the PyPI release: CUDA-event timing incl. host time).
set -u
R=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-/tmp/suite_out}
FIB=${FIB:-main}
SITE=${SITE:-/tmp/site}
mkdir -p "$OUT" "$SITE"
export PYTHONUNBUFFERED=1
t0=$(date +%s)
case "$FIB" in
  main) fib=$(ls "$R"/.whl/flashinfer_bench-0.1.3.dev0*.whl) ;;
  0.1.2) fib=$(ls "$R"/.whl/flashinfer_bench-0.1.2-*.whl) ;;
  *) echo "FIB must be main or 0.1.2" >&2; exit 2 ;;
esac
deps=$(ls "$R"/.whl/*.whl | grep -v '/flashinfer_bench-')
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$SITE" \
  $fib $deps "$R"/dist/wheels/pagedattn-*.whl "$R"/.peers/flashinfer/pkgs/*.whl || exit 3
A="$R/.peers/flashinfer" SITE="$SITE" python3 - <<'PY' || exit 4
import os, tarfile
a, site = os.environ["A"], os.environ["SITE"]
tarfile.open(f"{a}/pkgs/flashinfer_trim.tar.xz").extractall(site)
p = f"{a}/pkgs/aot_so.tar.xz"
os.makedirs(f"{site}/flashinfer/data/aot", exist_ok=True)
tarfile.open(p).extractall(f"{site}/flashinfer/data/aot")
print("flashinfer: trimmed package + prebuilt modules from", p)
PY
export PYTHONPATH=$SITE${PYTHONPATH:+:$PYTHONPATH}
export FLASHINFER_DISABLE_JIT=1 FLASHINFER_WORKSPACE_BASE=/tmp/fiws FLASHINFER_CUDA_ARCH_LIST="9.0a"
export FLASHINFER_LOGGING_LEVEL=WARNING FIB_CACHE_PATH=/tmp/fib_cache
python3 -c "import flashinfer_bench, pagedattn, flashinfer; print('flashinfer-bench', flashinfer_bench.__version__, '| pagedattn', pagedattn.__version__, pagedattn.build_info()['commit'], '| flashinfer', flashinfer.__version__)" || exit 5
python3 "$R/bench/flashinfer-bench/run_suite.py" --out "$OUT" "$@" 2>&1 | tee "$OUT/suite_log.txt"
rc=${PIPESTATUS[0]}
echo "suite rc=$rc total $(( $(date +%s) - t0 ))s"
exit $rc
