#!/usr/bin/env bash
# Prepared in the eleventh session (its device time was spent): builds what
# next-call1.sh needs on the build machine: dist/ (scripts/dist.sh) and
# dist/var/unitcost.cubin (the unitcost diagnostic of scripts/variant-src.py:
# clock64 stamps at a unit's stages, summed into global counters; no printf,
# so the wgmmas are not serialised: 224 HGMMA and 30 warpgroup waits, as
# shipped, no spills), and dist/var/earlyq.cubin (earlyq-variant.patch: with
# one Q slot, m128d, the slot is released after the unit's last S and the
# output staged in the unit's last V stage; no spills but 4 bytes at
# m128d_direct's entry, 224 HGMMA). About 3 minutes with the toolchain installed
# (bash scripts/install-cuda-toolchain.sh; export
# PAGEDATTN_TOOLCHAIN_DIR=$PWD/.toolchain/cuda).
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/dist.sh > /dev/null
tmp=$(mktemp -d)
python3 scripts/variant-src.py unitcost "$tmp/unitcost" > /dev/null
SRC=$tmp/unitcost bash scripts/build-variant.sh unitcost 2>&1 | grep -iE "spill|C75" | sort | uniq -c
git archive HEAD crates/pagedattn/kernels | tar -x -C "$tmp"
(cd "$tmp/crates/pagedattn/kernels" && patch -p1 -s < "$OLDPWD/bench-results/h200-v17-session/earlyq-variant.patch")
SRC=$tmp/crates/pagedattn/kernels bash scripts/build-variant.sh earlyq 2>&1 | grep -iE "spill|C75" | sort | uniq -c
c=${PAGEDATTN_TOOLCHAIN_DIR:-$PWD/.toolchain/cuda}/nvidia/cu13/bin/cuobjdump
for f in dist/attention.cubin dist/var/unitcost.cubin dist/var/earlyq.cubin; do
  echo "$f: $("$c" -sass $f | grep -c HGMMA) HGMMA, $("$c" -sass $f | grep -c WARPGROUP.DEPBAR) waits, $("$c" -sass $f | grep -cE 'LDL|STL') local"
done
du -sh dist
