#!/usr/bin/env bash
# Prepared in the fourteenth session: builds here (about 4 minutes, with the
# toolchain of scripts/install-cuda-toolchain.sh) what next-call1.sh carries
# to the GPU machine (carry ["dist"]):
#   dist/                  scripts/dist.sh (the shipped build, v16.0)
#   dist/base/pagedattn    the CLI of 7c9e025, the issues' baseline (a
#                          worktree; its build.rs takes NVCC and CUTLASS_INCLUDE)
#   dist/var/m64v.cubin    m64v-variant.patch on the shipped kernels (next-call2.sh)
set -euo pipefail
cd "$(dirname "$0")/../.."
export PAGEDATTN_TOOLCHAIN_DIR=${PAGEDATTN_TOOLCHAIN_DIR:-$PWD/.toolchain/cuda}
T=$PAGEDATTN_TOOLCHAIN_DIR
bash scripts/dist.sh > /dev/null
tmp=$(mktemp -d)
git worktree add -f "$tmp/base" 7c9e025 -q
(cd "$tmp/base" && NVCC=$T/nvidia/cu13/bin/nvcc CUTLASS_INCLUDE=$T/cutlass_library/source/include \
   CARGO_TARGET_DIR="$tmp/target" cargo build --release -q)
mkdir -p dist/base && cp "$tmp/target/release/pagedattn" dist/base/
git worktree remove --force "$tmp/base"; rm -rf "$tmp"
src=$(mktemp -d)
cp -r crates/pagedattn/kernels "$src/m64v"
(cd "$src/m64v" && patch -p1 -s < "$OLDPWD/bench-results/h200-v20-session/m64v-variant.patch")
SRC=$src/m64v bash scripts/build-variant.sh m64v 2>&1 | grep -iE "spill" | sort | uniq -c
rm -rf "$src"
rm -f dist/example_gpu  # room under the 64 MiB a call carries
du -sh dist
