#!/usr/bin/env bash
# Prepared in the tenth session (its device time was spent): builds what
# next-call1.sh needs on the build machine: dist/ (scripts/dist.sh),
# dist/var/fewsteps.cubin from fewsteps-variant.patch, dist/var/posonly.cubin
# from posonly-variant.patch on top of it, and the inline line tables of the
# shipped and the fewsteps cubin for scripts/ncu_source_lines.py.
#   fewsteps: the softmax of a unit's first block and of the fast path's
#   fallback through the masked step with limits past the block's end (the
#   unmasked step's bits: every key kept), so the consumers inline one copy
#   of the full step less: m128 9488 -> 8992 instructions (consumers 4483 ->
#   3988), m64 7640 -> 7320 (3079 -> 2758); no spills beyond m128d's 8 bytes,
#   HGMMA 40 / 32, 5 warpgroup waits, as shipped.
#   posonly (on top of fewsteps): the consumers keep only the softmax's
#   positive-scale path; for a negative scale the producer stores the Q
#   tile negated (each thread flips the sign bits of the chunks it copied,
#   after cp.async.wait_all, then fence.proxy.async and a plain arrive), so
#   S' scale' = S scale exactly (bf16 negation is exact, the dot products
#   negate exactly) and the consumers use |scale|: m128 8552 instructions
#   (consumers 3509), m64 7216 (2622); no spills at all (m128d's 8-byte
#   producer spill is gone too), HGMMA 40 / 32, 5 warpgroup waits. The
#   negative-scale code is removed from softmax.cuh (the form to ship).
# Then: next-call1.sh on the GPU machine with carry ["dist"].
set -euo pipefail
cd "$(dirname "$0")/../.."
here=bench-results/h200-v16-session
bash scripts/dist.sh > /dev/null
tmp=$(mktemp -d)
git archive HEAD crates/pagedattn/kernels | tar -x -C "$tmp"
k=$tmp/crates/pagedattn/kernels
(cd "$k" && patch -p1 -s < "$OLDPWD/$here/fewsteps-variant.patch")
SRC=$k bash scripts/build-variant.sh fewsteps
cp -r "$k" "$tmp/posonly"
(cd "$tmp/posonly" && patch -p1 -s < "$OLDPWD/$here/posonly-variant.patch")
SRC=$tmp/posonly bash scripts/build-variant.sh posonly
tc=${PAGEDATTN_TOOLCHAIN_DIR:-$PWD/.toolchain/cuda}
nvdisasm=${NVCC:+$(dirname "$NVCC")/nvdisasm}; nvdisasm=${nvdisasm:-$tc/nvidia/cu13/bin/nvdisasm}
"$nvdisasm" --print-line-info-inline dist/attention.cubin | gzip > dist/attention.disasm.gz
python3 scripts/sass_lines.py dist/attention.cubin
python3 scripts/sass_lines.py dist/var/fewsteps.cubin
python3 scripts/sass_lines.py dist/var/posonly.cubin
ls -la dist/var; du -sh dist
