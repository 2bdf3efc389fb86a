#!/usr/bin/env bash
# Twentieth session: dist/var/g8.cubin, m64 and m16 gathering with 8 lanes a row.
set -euo pipefail
cd "$(dirname "$0")/../.."
d=/tmp/v26src/g8; rm -rf "$d"; mkdir -p "$d"; cp -r crates/pagedattn/kernels/. "$d/"
python3 - "$d" <<'PY'
import sys, pathlib
a = pathlib.Path(sys.argv[1], "attention.cu"); t = a.read_text()
for old, new in [("""/*kPlanMaxBatch=*/512, /*kQSlots=*/2>;""", """/*kPlanMaxBatch=*/512, /*kQSlots=*/2, 2, 8>;"""),
                 ("""/*kPlanMaxBatch=*/256, /*kQSlots=*/2>;""", """/*kPlanMaxBatch=*/256, /*kQSlots=*/2, 2, 8>;""")]:
    assert t.count(old) == 1, old
    t = t.replace(old, new)
a.write_text(t)
PY
SRC=$d bash scripts/build-variant.sh g8 > /dev/null
