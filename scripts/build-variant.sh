#!/usr/bin/env bash
# Kernel experiments: compiles kernels/attention.cu with extra nvcc flags into
# dist/var/NAME.cubin (same flags as build.rs). On the GPU machine,
# PAGEDATTN_ATTENTION_CUBIN=dist/var/NAME.cubin makes the CLI and tests load it
# instead of the embedded cubin; `scripts/device-run.sh variants` times every
# dist/var/*.cubin, `sanitize-variants` runs the sanitizers over each.
#   bash scripts/build-variant.sh NAME [-DFOO ...]
#   GIT_REF=branch bash scripts/build-variant.sh NAME   # the kernels/ of a git ref
# (the cubin must keep the entry points and Params of this tree's host code).
set -euo pipefail
cd "$(dirname "$0")/.."
name=$1; shift
tc=$PWD/.toolchain/cuda
nvcc=${NVCC:-$(command -v nvcc || echo "$tc/nvidia/cu13/bin/nvcc")}
cutlass=${CUTLASS_INCLUDE:-$tc/cutlass_library/source/include}
src=kernels
if [ -n "${GIT_REF:-}" ]; then
  src=$(mktemp -d)
  git archive "$GIT_REF" kernels | tar -x -C "$src"
  src=$src/kernels
fi
mkdir -p dist/var
"$nvcc" -gencode=arch=compute_90a,code=sm_90a -cubin -std=c++17 --expt-relaxed-constexpr -O3 -lineinfo \
  -Xptxas=-v -DNDEBUG -I"$cutlass" -I"$src" "$@" -o "dist/var/$name.cubin" "$src/attention.cu" 2>&1 |
  grep -E "entry function|registers|spill" | sed "s/^/[$name] /"
