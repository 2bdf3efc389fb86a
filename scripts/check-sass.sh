#!/usr/bin/env bash
# Checks the compiled attention kernel: HGMMA (wgmma) instructions present, and
# prints the ptxas resource report (registers, spills). Builds the release
# workspace if needed (the cubins live in the library build script's OUT_DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(bash scripts/kernel-out-dir.sh)
cubin=$out/attention.cubin
[ -f "$cubin" ] || { echo "FAIL: no $cubin: the build has no kernels (see its warning)"; exit 1; }
tc=${PAGEDATTN_TOOLCHAIN_DIR:-$PWD/.toolchain/cuda}
cuobjdump=$(command -v cuobjdump || true)
for c in "$tc/nvidia/cu13/bin/cuobjdump" "$out/cuda-toolchain/nvidia/cu13/bin/cuobjdump"; do
  [ -n "$cuobjdump" ] || { [ -x "$c" ] && cuobjdump=$c; }
done
if [ -z "$cuobjdump" ]; then
  bash scripts/install-cuda-toolchain.sh "$tc" >/dev/null
  cuobjdump=$tc/nvidia/cu13/bin/cuobjdump
fi
sass=$("$cuobjdump" --dump-sass "$cubin")
n=$(grep -c HGMMA <<<"$sass" || true)
ldl=$(grep -cE '\b(LDL|STL)\b' <<<"$sass" || true)
echo "attention.cubin: $n HGMMA instructions, $ldl local-memory instructions"
grep -E "registers|spill" "$out/ptxas_report.txt" || true
if [ "$n" -eq 0 ]; then
  echo "FAIL: no HGMMA in the attention kernel's SASS (built for the wrong target?)"
  exit 1
fi
