#!/usr/bin/env bash
# Prepared in the eighth session, not run (its device time was spent):
# builds what next-call1.sh needs, on the build machine: dist/
# (scripts/dist.sh) and dist/var/qback.cubin from qback-variant.patch (m128d
# releases its one Q slot after the unit's last QK GEMM and stores the
# output straight from registers, so the next unit's Q loads under this
# unit's last P V and epilogue; m128 and m64 compile to the same SASS).
# Then: run next-call1.sh on the GPU machine with carry ["dist"].
set -euo pipefail
cd "$(dirname "$0")/../.."
here=bench-results/h200-v14-session
bash scripts/dist.sh > /dev/null
tmp=$(mktemp -d)
git archive HEAD crates/pagedattn/kernels | tar -x -C "$tmp"
(cd "$tmp" && patch -p1 -s < "$OLDPWD/$here/qback-variant.patch")
SRC=$tmp/crates/pagedattn/kernels bash scripts/build-variant.sh qback
ls dist/var
