#!/usr/bin/env bash
# Prepared in the thirteenth session: builds here (about 3 minutes, with
# the toolchain of scripts/install-cuda-toolchain.sh) what next-call1.sh
# carries to the GPU machine (carry ["dist"]):
#   dist/                  scripts/dist.sh (the shipped build, v15.1)
#   dist/var/k2v3.cubin    k2v3-variant.patch on the shipped kernels
# and prints the variant's spill lines and HGMMA count.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PAGEDATTN_TOOLCHAIN_DIR=${PAGEDATTN_TOOLCHAIN_DIR:-$PWD/.toolchain/cuda}
bash scripts/dist.sh > /dev/null
tmp=$(mktemp -d)
cp -r crates/pagedattn/kernels "$tmp/k2v3"
(cd "$tmp/k2v3" && patch -p1 -s < "$OLDPWD/bench-results/h200-v19-session/k2v3-variant.patch")
SRC=$tmp/k2v3 bash scripts/build-variant.sh k2v3 2>&1 | grep -iE "spill|C75" | sort | uniq -c
c=$PAGEDATTN_TOOLCHAIN_DIR/nvidia/cu13/bin/cuobjdump
echo "dist/var/k2v3.cubin: $("$c" -sass dist/var/k2v3.cubin | grep -c HGMMA) HGMMA, $("$c" -sass dist/var/k2v3.cubin | grep -cE 'LDL|STL') local"
rm -rf "$tmp"
du -sh dist
