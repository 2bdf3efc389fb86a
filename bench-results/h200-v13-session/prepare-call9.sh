#!/usr/bin/env bash
# Builds what call9.sh needs, on the build machine: dist/ (scripts/dist.sh)
# and the variant cubins from this folder's patches against the tree's
# kernels (late, lim16, latelim16) and scripts/variant-src.py (novote).
# Then: run call9.sh on the GPU machine with carry ["dist"].
set -euo pipefail
cd "$(dirname "$0")/../.."
here=bench-results/h200-v13-session
bash scripts/dist.sh > /dev/null
tmp=$(mktemp -d)
for v in late lim16 latelim16; do
  mkdir -p "$tmp/$v" && git archive HEAD crates/pagedattn/kernels | tar -x -C "$tmp/$v"
done
(cd "$tmp/late" && patch -p1 -s < "$OLDPWD/$here/late-variant.patch")
(cd "$tmp/lim16" && patch -p1 -s < "$OLDPWD/$here/lim16-variant.patch")
(cd "$tmp/latelim16" && patch -p1 -s < "$OLDPWD/$here/late-variant.patch" && patch -p1 -s < "$OLDPWD/$here/lim16-variant.patch")
for v in late lim16 latelim16; do SRC=$tmp/$v/crates/pagedattn/kernels bash scripts/build-variant.sh $v; done
python3 scripts/variant-src.py novote "$tmp/novote" > /dev/null
SRC=$tmp/novote bash scripts/build-variant.sh novote
ls dist/var
