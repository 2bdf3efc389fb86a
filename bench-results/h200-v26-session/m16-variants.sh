#!/usr/bin/env bash
# Twentieth session: m16 ring variants (not shipped): dist/var/NAME.cubin.
#   m16s4: 4-deep K and V rings, 1 CTA an SM
#   m16s3: 3-deep K and V rings, 1 CTA an SM
set -euo pipefail
cd "$(dirname "$0")/../.."
K=crates/pagedattn/kernels
mk() {  # NAME STAGES
  local d=/tmp/v26src/$1; rm -rf "$d"; mkdir -p "$d"; cp -r $K/. "$d/"
  python3 - "$d" "$2" <<'PY'
import sys, pathlib
d, st = sys.argv[1:]
a = pathlib.Path(d, "attention.cu"); t = a.read_text()
old = """using TraitsM16 = KernelTraits</*kBlockM=*/16, /*kBlockN=*/64, /*kStages=*/2, /*kCtasPerSm=*/2,
                               /*kPlanMaxBatch=*/256, /*kQSlots=*/2>;"""
assert old in t
t = t.replace(old, f"using TraitsM16 = KernelTraits<16, 64, {st}, 2, 256, 2>;")
a.write_text(t)
k = pathlib.Path(d, "attn/kernel_traits.cuh"); t = k.read_text()
o = 'static_assert(kSmemBytes + 1024 <= 233472 / kCtasPerSm, "shared memory per SM");'
assert o in t
k.write_text(t.replace(o, 'static_assert(kSmemBytes + 1024 <= 233472, "shared memory per SM");'))
PY
  SRC=$d bash scripts/build-variant.sh "$1" > /dev/null
}
mk m16s4 4
mk m16s3 3
