#!/usr/bin/env bash
# Kernel experiments: compiles kernels/attention.cu with extra nvcc flags into
# dist/var/NAME.cubin (same flags as build.rs). On the GPU machine,
# PAGEDATTN_ATTENTION_CUBIN=dist/var/NAME.cubin makes the CLI and tests load it
# instead of the embedded cubin.
#   bash scripts/build-variant.sh NAME [-DFOO ...]
set -euo pipefail
cd "$(dirname "$0")/.."
name=$1; shift
tc=.toolchain/cuda
nvcc=${NVCC:-$(command -v nvcc || echo "$tc/nvidia/cu13/bin/nvcc")}
cutlass=${CUTLASS_INCLUDE:-$tc/cutlass_library/source/include}
mkdir -p dist/var
"$nvcc" -gencode=arch=compute_90a,code=sm_90a -cubin -std=c++17 --expt-relaxed-constexpr -O3 -lineinfo \
  -Xptxas=-v -DNDEBUG -I"$cutlass" -Ikernels "$@" -o "dist/var/$name.cubin" kernels/attention.cu 2>&1 |
  grep -E "entry function|registers|spill" | sed "s/^/[$name] /"
