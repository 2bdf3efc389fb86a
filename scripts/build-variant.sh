#!/usr/bin/env bash
# Kernel experiments: compiles crates/pagedattn/kernels/attention.cu with extra
# nvcc flags into dist/var/NAME.cubin (same flags as build.rs). On the GPU
# machine, `pagedattn --attention-cubin dist/var/NAME.cubin` (and
# PAGEDATTN_ATTENTION_CUBIN=... for the GPU test binaries) loads it instead of
# the embedded cubin; `scripts/device-run.sh variants` times every
# dist/var/*.cubin, `sanitize-variants` runs the sanitizers over each.
#   bash scripts/build-variant.sh NAME [-DFOO ...]
#   GIT_REF=branch bash scripts/build-variant.sh NAME   # the kernels/ of a git ref
#   SRC=dir bash scripts/build-variant.sh NAME          # an edited copy of the kernels/
# (the cubin must keep the entry points and Params of this tree's host code).
set -euo pipefail
cd "$(dirname "$0")/.."
name=$1; shift
tc=${PAGEDATTN_TOOLCHAIN_DIR:-$PWD/.toolchain/cuda}
[ -n "${NVCC:-}" ] || command -v nvcc >/dev/null || [ -x "$tc/nvidia/cu13/bin/nvcc" ] \
  || bash scripts/install-cuda-toolchain.sh "$tc" >/dev/null
nvcc=${NVCC:-$(command -v nvcc || echo "$tc/nvidia/cu13/bin/nvcc")}
cutlass=${CUTLASS_INCLUDE:-$tc/cutlass_library/source/include}
src=${SRC:-crates/pagedattn/kernels}
if [ -n "${GIT_REF:-}" ]; then
  tmp=$(mktemp -d)
  # The kernels moved from kernels/ to crates/pagedattn/kernels/: either.
  if git cat-file -e "$GIT_REF:crates/pagedattn/kernels" 2>/dev/null; then k=crates/pagedattn/kernels; else k=kernels; fi
  git archive "$GIT_REF" "$k" | tar -x -C "$tmp"
  src=$tmp/$k
fi
mkdir -p dist/var
"$nvcc" -gencode=arch=compute_90a,code=sm_90a -cubin -std=c++17 --expt-relaxed-constexpr -O3 -lineinfo \
  -Xptxas=-v -DNDEBUG -I"$cutlass" -I"$src" "$@" -o "dist/var/$name.cubin" "$src/attention.cu" 2>&1 |
  grep -E "entry function|registers|spill|Performance Loss|injected" | sed "s/^/[$name] /"
