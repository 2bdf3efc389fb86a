#!/usr/bin/env bash
# Prepared in the ninth session (its GPU machines stopped being lent after
# call 4): builds what h200-v16-session/call1.sh needs on the build machine: dist/
# (scripts/dist.sh) and dist/var/chained.cubin from chained-variant.patch
# (the planned m128 and m64 kernels chain their units: a unit's last P V is
# issued with the next unit's first QK, the next unit's first softmax runs
# under it, then the unit's output is stored; compiled clean, no spills, the
# GEMMs not serialised, m128d and the direct kernels the shipped SASS).
# chprobe-variant.patch (on top of chained): the tail probes the next
# unit's Q instead of waiting for it (warpgroup 0 decides, warpgroup 1 reads
# the decision once its turn comes).
# chall-variant.patch (on top of chained): chunks of split tiles chained
# too (their partial write, count and merge after the next unit's first
# softmax; 4 bytes of spills in m128). chearly-variant.patch (on top of
# chained): the producer of the two-slot kernels claims the next ticket one
# block earlier, so that the next unit's Q is in when the tail waits for it.
# Then: run h200-v16-session/call1.sh (correctness) and call2.sh (timing) on the
# GPU machine, each with carry ["dist"].
set -euo pipefail
cd "$(dirname "$0")/../.."
here=bench-results/h200-v15-session
bash scripts/dist.sh > /dev/null
tmp=$(mktemp -d)
git archive HEAD crates/pagedattn/kernels | tar -x -C "$tmp"
(cd "$tmp/crates/pagedattn/kernels" && patch -p1 -s < "$OLDPWD/$here/chained-variant.patch")
SRC=$tmp/crates/pagedattn/kernels bash scripts/build-variant.sh chained
cp -r "$tmp/crates/pagedattn/kernels" "$tmp/chall"
cp -r "$tmp/crates/pagedattn/kernels" "$tmp/chearly"
(cd "$tmp/chearly" && patch -p1 -s < "$OLDPWD/$here/chearly-variant.patch")
SRC=$tmp/chearly bash scripts/build-variant.sh chearly
(cd "$tmp/crates/pagedattn/kernels" && patch -p1 -s < "$OLDPWD/$here/chprobe-variant.patch")
SRC=$tmp/crates/pagedattn/kernels bash scripts/build-variant.sh chprobe
(cd "$tmp/chall" && patch -p1 -s < "$OLDPWD/$here/chall-variant.patch")
SRC=$tmp/chall bash scripts/build-variant.sh chall
ls dist/var
