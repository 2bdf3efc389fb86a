#!/usr/bin/env bash
# Eighteenth session: what call4.sh carries (carry ["dist", "dist-main"]):
# dist of this tree (prefers_m192 as a model of both plans) with gpu_tests,
# prefix.jsonl and shapes.jsonl, and dist/holdout4.jsonl: of the 379 random
# cached-prefix calls of `make-sweep-workloads.py --holdout4`, the first 12
# the rule gives to m192 and the first 12 it leaves (the m192_calls
# example). dist-main/pagedattn: 58d2020's CLI (h200-v23-session/prepare-next.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
export PAGEDATTN_TOOLCHAIN_DIR=${PAGEDATTN_TOOLCHAIN_DIR:-$PWD/.toolchain/cuda}
rm -rf dist && bash scripts/dist.sh > /dev/null
rm -f dist/example_gpu dist/attention.cubin dist/gpu_reliability dist/scale.jsonl dist/split.jsonl dist/seed.jsonl
python3 scripts/make-sweep-workloads.py --holdout4 /tmp/holdout4-all.jsonl
cargo run --release -q -p pagedattn-cli --example m192_calls -- /tmp/holdout4-all.jsonl > /tmp/holdout4-calls.txt
python3 - <<'PY'
import json
take = {}
for line in open("/tmp/holdout4-calls.txt"):
    name, cfg = line.split()
    take.setdefault(cfg, [])
    if len(take[cfg]) < 12:
        take[cfg].append(name)
keep = set(take["m192"]) | set(take["-"])
with open("dist/holdout4.jsonl", "w") as out:
    for line in open("/tmp/holdout4-all.jsonl"):
        if json.loads(line)["name"] in keep:
            out.write(line)
print("holdout4:", len(keep), "calls;", "m192:", " ".join(take["m192"]))
PY
du -sh dist dist-main
