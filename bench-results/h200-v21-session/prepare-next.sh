#!/usr/bin/env bash
# Prepared in the fifteenth session: builds here (about 2 minutes, with the
# toolchain of scripts/install-cuda-toolchain.sh) what next-call1.sh carries
# to the GPU machine (carry ["dist"]):
#   dist/                  scripts/dist.sh (the shipped build, v16.0)
#   dist/var/updownd.cubin updownd-variant.patch on the shipped kernels
#   dist/var/gather16.cubin gather16-variant.patch on the shipped kernels
set -euo pipefail
cd "$(dirname "$0")/../.."
export PAGEDATTN_TOOLCHAIN_DIR=${PAGEDATTN_TOOLCHAIN_DIR:-$PWD/.toolchain/cuda}
rm -rf dist
bash scripts/dist.sh > /dev/null
src=$(mktemp -d)
for v in updownd gather16; do
  cp -r crates/pagedattn/kernels "$src/$v"
  (cd "$src/$v" && patch -p1 -s < "$OLDPWD/bench-results/h200-v21-session/$v-variant.patch")
  SRC=$src/$v bash scripts/build-variant.sh $v 2>&1 | grep -iE "spill" | sort | uniq -c
done
rm -rf "$src"
rm -f dist/example_gpu  # room under the 64 MiB a call carries
du -sh dist
