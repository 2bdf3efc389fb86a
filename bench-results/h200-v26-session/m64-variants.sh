#!/usr/bin/env bash
# Twentieth session: m64 ring variants (not shipped configurations): writes
# edited copies of the kernels under /tmp/v26src/NAME and builds
# dist/var/NAME.cubin for each.
#   v3q1: m64 with one Q slot and a 3-deep V ring (2 CTAs an SM)
#   s4c1: m64 with 4-deep K and V rings, two Q slots (1 CTA an SM)
#   s5c1: m64 with 5-deep K and V rings, two Q slots (1 CTA an SM)
set -euo pipefail
cd "$(dirname "$0")/../.."
K=crates/pagedattn/kernels
old='using TraitsM64 = KernelTraits</*kBlockM=*/64, /*kBlockN=*/64, /*kStages=*/2, /*kCtasPerSm=*/2,
                               /*kPlanMaxBatch=*/512, /*kQSlots=*/2>;'
mk() {  # NAME STAGES QSLOTS STAGESV ONECTA
  local d=/tmp/v26src/$1; rm -rf "$d"; mkdir -p "$d"; cp -r $K/. "$d/"
  python3 - "$d" "$2" "$3" "$4" "$5" <<'PY'
import sys, pathlib
d, st, qs, sv, one = sys.argv[1:]
a = pathlib.Path(d, "attention.cu"); t = a.read_text()
old = """using TraitsM64 = KernelTraits</*kBlockM=*/64, /*kBlockN=*/64, /*kStages=*/2, /*kCtasPerSm=*/2,
                               /*kPlanMaxBatch=*/512, /*kQSlots=*/2>;"""
assert old in t
t = t.replace(old, f"using TraitsM64 = KernelTraits<64, 64, {st}, 2, 512, {qs}, {sv}>;")
a.write_text(t)
if one == "1":
    k = pathlib.Path(d, "attn/kernel_traits.cuh"); t = k.read_text()
    o = 'static_assert(kSmemBytes + 1024 <= 233472 / kCtasPerSm, "shared memory per SM");'
    assert o in t
    k.write_text(t.replace(o, 'static_assert(kSmemBytes + 1024 <= 233472, "shared memory per SM");'))
PY
  SRC=$d bash scripts/build-variant.sh "$1" | grep -E 'm64' | grep -v direct || true
}
mk v3q1 2 1 3 0
mk s4c1 4 2 4 1
mk s5c1 5 2 5 1
