#!/usr/bin/env bash
# CI steps of the Python package (called by .ci/run; runs alone too, from a clean
# clone, without GPU; fmt and clippy of the crate run with the workspace's): the
# wheel by scripts/build-wheel.sh (kernels included), then a
# fresh venv with the wheel + numpy, ml_dtypes and pytest from PyPI, and the CPU
# tests (the GPU tests report themselves skipped, with the reason).
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$(date +%s)
step() { echo; echo "== [py +$(( $(date +%s) - t0 ))s] $*"; }

step "wheel: scripts/build-wheel.sh"
wheel=$(bash scripts/build-wheel.sh | tail -1)

step "fresh venv: pip install the wheel + numpy ml_dtypes pytest; pytest"
rm -rf target/py-venv
python3 -m venv target/py-venv
target/py-venv/bin/python -m pip install -q --disable-pip-version-check "$wheel" numpy ml_dtypes pytest
(cd crates/pagedattn-py && ../../target/py-venv/bin/python -m pytest -q -rs tests)
