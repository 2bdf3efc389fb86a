#!/usr/bin/env bash
# Installs the pinned CUDA toolchain (nvcc 13.0, CUTLASS 4.2, cuobjdump and
# nvdisasm; about 320 MB from PyPI) into DIR, default $PAGEDATTN_TOOLCHAIN_DIR
# or .toolchain/cuda (git-ignored). The scripts here use that directory; with
# `export PAGEDATTN_TOOLCHAIN_DIR=$PWD/.toolchain/cuda` cargo builds use it too
# instead of installing a copy into their OUT_DIR.
#   bash scripts/install-cuda-toolchain.sh [DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
exec bash "$root/crates/pagedattn/install-cuda-toolchain.sh" "${1:-${PAGEDATTN_TOOLCHAIN_DIR:-$root/.toolchain/cuda}}"
