#!/usr/bin/env bash
# Prepared in the tenth session (its device time was spent): builds what
# next-call1.sh needs on the build machine: dist/ (scripts/dist.sh),
# dist/var/fewsteps.cubin from fewsteps-variant.patch, dist/var/nosign.cubin
# from nosign-variant.patch on top of it, and the inline line tables of the
# shipped and the fewsteps cubin for scripts/ncu_source_lines.py.
#   fewsteps: the softmax of a unit's first block and of the fast path's
#   fallback through the masked step with limits past the block's end (the
#   unmasked step's bits: every key kept), so the consumers inline one copy
#   of the full step less: m128 9488 -> 8992 instructions (consumers 4483 ->
#   3988), m64 7640 -> 7320 (3079 -> 2758); no spills beyond m128d's 8 bytes,
#   HGMMA 40 / 32, 5 warpgroup waits, as shipped.
#   nosign (diagnostic, on top of fewsteps): the step's extreme always the
#   max (wrong for a negative scale: the reliability tests that use one
#   fail): m128 8520, m64 7184: what the negative-scale loops cost in fetch.
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
cp -r "$k" "$tmp/nosign"
(cd "$tmp/nosign" && patch -p1 -s < "$OLDPWD/$here/nosign-variant.patch")
SRC=$tmp/nosign bash scripts/build-variant.sh nosign
tc=${PAGEDATTN_TOOLCHAIN_DIR:-$PWD/.toolchain/cuda}
nvdisasm=${NVCC:+$(dirname "$NVCC")/nvdisasm}; nvdisasm=${nvdisasm:-$tc/nvidia/cu13/bin/nvdisasm}
"$nvdisasm" --print-line-info-inline dist/attention.cubin | gzip > dist/attention.disasm.gz
"$nvdisasm" --print-line-info-inline dist/var/fewsteps.cubin | gzip > dist/var/fewsteps.disasm.gz
python3 scripts/sass_lines.py dist/attention.cubin
python3 scripts/sass_lines.py dist/var/fewsteps.cubin
ls -la dist/var; du -sh dist
