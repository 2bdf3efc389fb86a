#!/usr/bin/env bash
# Checks the compiled attention kernel: HGMMA (wgmma) instructions present, and
# prints the ptxas resource report (registers, spills). Needs a build first
# (cargo build / cargo test put the cubins in target/kernels).
set -euo pipefail
cd "$(dirname "$0")/.."
cubin=target/kernels/attention.cubin
[ -f "$cubin" ] || { echo "no $cubin: build first"; exit 1; }
cuobjdump=$(command -v cuobjdump || echo .toolchain/cuda/nvidia/cu13/bin/cuobjdump)
[ -x "$cuobjdump" ] || bash scripts/install-cuda-toolchain.sh >/dev/null
sass=$("$cuobjdump" --dump-sass "$cubin")
n=$(grep -c HGMMA <<<"$sass" || true)
ldl=$(grep -cE '\b(LDL|STL)\b' <<<"$sass" || true)
echo "attention.cubin: $n HGMMA instructions, $ldl local-memory instructions"
grep -E "registers|spill" target/kernels/ptxas_report.txt || true
if [ "$n" -eq 0 ]; then
  echo "FAIL: no HGMMA in the attention kernel's SASS (built for the wrong target?)"
  exit 1
fi
