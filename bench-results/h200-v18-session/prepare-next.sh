#!/usr/bin/env bash
# Prepared in the twelfth session: builds here (about 3 minutes, with the
# toolchain of scripts/install-cuda-toolchain.sh) what next-call1.sh and
# next-call2.sh carry to the GPU machine (carry ["dist"]):
#   dist/                      scripts/dist.sh (the shipped build)
#   dist/var/unitcost.cubin    the unitcost diagnostic of scripts/variant-src.py
#   dist/var/tk2.cubin         tk2-variant.patch on the shipped kernels
#   dist/var/pcopy.cubin       pcopy-variant.patch on the shipped kernels
# and prints each cubin's HGMMA count, wgmma waits and local-memory lines.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PAGEDATTN_TOOLCHAIN_DIR=${PAGEDATTN_TOOLCHAIN_DIR:-$PWD/.toolchain/cuda}
bash scripts/dist.sh > /dev/null
tmp=$(mktemp -d)
python3 scripts/variant-src.py unitcost "$tmp/unitcost" > /dev/null
SRC=$tmp/unitcost bash scripts/build-variant.sh unitcost 2>&1 | grep -iE "spill|C75" | sort | uniq -c
cp -r crates/pagedattn/kernels "$tmp/tk2"
(cd "$tmp/tk2" && patch -p1 -s < "$OLDPWD/bench-results/h200-v18-session/tk2-variant.patch")
SRC=$tmp/tk2 bash scripts/build-variant.sh tk2 2>&1 | grep -iE "spill|C75" | sort | uniq -c
cp -r crates/pagedattn/kernels "$tmp/pcopy"
(cd "$tmp/pcopy" && patch -p1 -s < "$OLDPWD/bench-results/h200-v18-session/pcopy-variant.patch")
SRC=$tmp/pcopy bash scripts/build-variant.sh pcopy 2>&1 | grep -iE "spill|C75" | sort | uniq -c
python3 bench-results/h200-v18-session/ticket-sim.py
c=$PAGEDATTN_TOOLCHAIN_DIR/nvidia/cu13/bin/cuobjdump
for f in dist/attention.cubin dist/var/unitcost.cubin dist/var/tk2.cubin dist/var/pcopy.cubin; do
  echo "$f: $("$c" -sass $f | grep -c HGMMA) HGMMA, $("$c" -sass $f | grep -c WARPGROUP.DEPBAR) waits, $("$c" -sass $f | grep -cE 'LDL|STL') local"
done
rm -rf "$tmp"
du -sh dist
