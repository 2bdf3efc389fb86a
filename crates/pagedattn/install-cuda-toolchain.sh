#!/usr/bin/env bash
# Installs the pinned CUDA compiler (nvcc 13.0) and CUTLASS/CuTe headers from
# PyPI into DIR. build.rs runs it when no CUDA toolkit is found (DIR: its
# OUT_DIR, or $PAGEDATTN_TOOLCHAIN_DIR); scripts/install-cuda-toolchain.sh runs
# it by hand. Idempotent: a complete install is left alone.
#
#   bash install-cuda-toolchain.sh DIR
set -euo pipefail
dir=${1:?usage: install-cuda-toolchain.sh DIR}
stamp="$dir/.complete-v1"
if [ -f "$stamp" ]; then
  echo "cuda toolchain: already installed in $dir"
  exit 0
fi
py=${PYTHON:-python3}
command -v "$py" >/dev/null || { echo "no $py on PATH (needed for pip)" >&2; exit 1; }
"$py" -m pip --version >/dev/null 2>&1 || { echo "$py -m pip is not available" >&2; exit 1; }
mkdir -p "$dir"
# Every wheel pinned and --no-deps: nvcc's own dependencies are unpinned and pull
# newer pieces that break the build; nvidia-cutlass would pull unneeded Python.
"$py" -m pip install --quiet --disable-pip-version-check --no-deps --no-compile \
  --retries 2 --timeout 30 --target "$dir" --upgrade \
  nvidia-cuda-nvcc==13.0.88 nvidia-cuda-crt==13.0.88 nvidia-nvvm==13.0.88 \
  nvidia-cuda-runtime==13.0.88 nvidia-cuda-cccl==13.0.85 nvidia-cutlass==4.2.0.0 \
  nvidia-cuda-cuobjdump==13.2.51 nvidia-cuda-nvdisasm==13.2.51
test -x "$dir/nvidia/cu13/bin/nvcc"
test -f "$dir/cutlass_library/source/include/cute/tensor.hpp"
touch "$stamp"
echo "cuda toolchain: installed in $dir"
echo "  nvcc:    $dir/nvidia/cu13/bin/nvcc"
echo "  cutlass: $dir/cutlass_library/source/include"
