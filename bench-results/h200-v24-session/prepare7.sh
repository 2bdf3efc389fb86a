#!/usr/bin/env bash
# Eighteenth session: what call7.sh carries (carry ["dist"]): dist of this
# tree and dist/holdout4b.jsonl: of the 379 random cached-prefix calls of
# `make-sweep-workloads.py --holdout4`, the next 12 the rule gives to m192
# and the next 12 it leaves (after the 24 call 4 measured); dist-main/pagedattn
# built from 58d2020 (the build before m192 was chosen; carry it too).
set -euo pipefail
cd "$(dirname "$0")/../.."
export PAGEDATTN_TOOLCHAIN_DIR=${PAGEDATTN_TOOLCHAIN_DIR:-$PWD/.toolchain/cuda}
rm -rf dist && bash scripts/dist.sh > /dev/null
rm -f dist/example_gpu dist/attention.cubin dist/gpu_reliability dist/gpu_tests dist/scale.jsonl dist/split.jsonl
python3 scripts/make-sweep-workloads.py --holdout4 /tmp/holdout4-all.jsonl
cargo run --release -q -p pagedattn-cli --example m192_calls -- /tmp/holdout4-all.jsonl > /tmp/holdout4-calls.txt
python3 - <<'PY'
import json
seen, take = {}, {}
for line in open("/tmp/holdout4-calls.txt"):
    name, cfg = line.split()
    seen[cfg] = seen.get(cfg, 0) + 1
    if 12 < seen[cfg] <= 24:
        take.setdefault(cfg, []).append(name)
keep = set(take["m192"]) | set(take["-"])
with open("dist/holdout4b.jsonl", "w") as out:
    for line in open("/tmp/holdout4-all.jsonl"):
        if json.loads(line)["name"] in keep:
            out.write(line)
print("holdout4b:", len(keep), "calls;", "m192:", " ".join(take["m192"]))
PY
tree=$(mktemp -d)
git worktree add -q --detach "$tree" 58d2020
(cd "$tree" && CARGO_TARGET_DIR="$PWD/../$(basename "$tree")-target" cargo build --release -q -p pagedattn-cli)
rm -rf dist-main && mkdir dist-main && cp "$tree-target/release/pagedattn" dist-main/
git worktree remove --force "$tree"; rm -rf "$tree-target"
du -sh dist dist-main
