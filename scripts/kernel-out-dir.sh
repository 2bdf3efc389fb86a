#!/usr/bin/env bash
# Prints the directory where the library's build script put the compiled
# kernels (attention.cubin, reference.cubin, ptxas_report.txt) of the release
# build of the workspace (building it if needed): build.rs writes only under
# its OUT_DIR, which cargo names per build. Extra arguments go to cargo.
#   bash scripts/kernel-out-dir.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --workspace --message-format=json "$@" | python3 -c '
import json, sys
dirs = [m["out_dir"] for m in map(json.loads, sys.stdin)
        if m.get("reason") == "build-script-executed" and "/crates/pagedattn#" in m.get("package_id", "")]
if not dirs:
    sys.exit("no build-script output of crates/pagedattn in the cargo messages")
print(dirs[-1])'
