#!/usr/bin/env bash
# Builds the Python wheel of pagedattn (crates/pagedattn-py: PyO3 + maturin,
# abi3, one wheel for CPython >= 3.9 on x86-64 Linux) into dist/wheels/
# (git-ignored). The wheel carries the GPU kernels (embedded in the Rust
# library, compiled here with nvcc as for `cargo build`) and needs nothing at
# run time but libcuda for the GPU path (opened with dlopen).
#
#   bash scripts/build-wheel.sh            # prints the wheel's path last
#
# maturin is installed from PyPI into .tools/maturin (git-ignored) on first
# use. Kernels: build.rs finds nvcc/CUTLASS ($NVCC, $CUTLASS_INCLUDE, CUDA_HOME,
# PATH, or the pinned wheels it installs under $PAGEDATTN_TOOLCHAIN_DIR / OUT_DIR);
# `bash scripts/build-wheel.sh --no-default-features` builds a CPU-only wheel.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
MATURIN_VERSION=1.9.6
TOOLS=$ROOT/.tools/maturin
if [ ! -x "$TOOLS/bin/maturin" ] || [ "$("$TOOLS/bin/maturin" --version 2>/dev/null)" != "maturin $MATURIN_VERSION" ]; then
  echo "installing maturin $MATURIN_VERSION into .tools/maturin" >&2
  rm -rf "$TOOLS"
  python3 -m venv "$TOOLS"
  "$TOOLS/bin/python" -m pip install -q --disable-pip-version-check "maturin==$MATURIN_VERSION"
fi
# Shares the root target/ with `cargo build --release`, so the kernels
# compiled there are reused when nothing changed.
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
PAGEDATTN_PY_COMMIT=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
if [ -n "$(git status --porcelain -- crates/pagedattn crates/pagedattn-py 2>/dev/null || true)" ]; then
  PAGEDATTN_PY_COMMIT="$PAGEDATTN_PY_COMMIT-dirty"
fi
export PAGEDATTN_PY_COMMIT
OUT=$ROOT/dist/wheels
mkdir -p "$OUT"
rm -f "$OUT"/pagedattn-*.whl
"$TOOLS/bin/maturin" build --release --strip \
  --manifest-path crates/pagedattn-py/Cargo.toml --out "$OUT" "$@"
wheel=$(ls "$OUT"/pagedattn-*.whl)
echo "built $wheel ($(du -h "$wheel" | cut -f1), commit $PAGEDATTN_PY_COMMIT)" >&2
echo "$wheel"
