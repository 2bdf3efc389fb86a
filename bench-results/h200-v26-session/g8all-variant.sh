#!/usr/bin/env bash
# Twentieth session: dist/var/g8all.cubin, every configuration gathering 8
# lanes a row (the tree: m64 only).
set -euo pipefail
cd "$(dirname "$0")/../.."
d=/tmp/v26src/g8all; rm -rf "$d"; mkdir -p "$d"; cp -r crates/pagedattn/kernels/. "$d/"
python3 - "$d" <<'PY'
import sys, pathlib
k = pathlib.Path(sys.argv[1], "attn/kernel_traits.cuh"); t = k.read_text()
old = "int kStagesV_ = kStages_, int kGatherLanes_ = 4>"
assert old in t
k.write_text(t.replace(old, "int kStagesV_ = kStages_, int kGatherLanes_ = 8>"))
PY
SRC=$d bash scripts/build-variant.sh g8all > /dev/null
