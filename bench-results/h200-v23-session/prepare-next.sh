#!/usr/bin/env bash
# Prepared in the seventeenth session: builds here (about 5 minutes, with
# the toolchain of scripts/install-cuda-toolchain.sh) what call5.sh carries
# (carry ["dist", "dist-main"]):
#   dist/       main's dist, with dist/holdout.jsonl (make-sweep-workloads.py --holdout)
#   dist-main/  the CLI of 58d2020, the last build before TileConfig::choose
#               picked m192 (the A/B baseline)
# Leaves the working tree as it was (dist-main/ is untracked: remove it
# after the call, or it travels with every later call).
set -euo pipefail
cd "$(dirname "$0")/../.."
export PAGEDATTN_TOOLCHAIN_DIR=${PAGEDATTN_TOOLCHAIN_DIR:-$PWD/.toolchain/cuda}
rm -rf dist && bash scripts/dist.sh > /dev/null
rm -f dist/example_gpu dist/attention.cubin
python3 scripts/make-sweep-workloads.py --holdout dist/holdout.jsonl
tree=$(mktemp -d)
git worktree add -q --detach "$tree" 58d2020
(cd "$tree" && CARGO_TARGET_DIR="$PWD/../$(basename "$tree")-target" cargo build --release -q -p pagedattn-cli)
rm -rf dist-main && mkdir dist-main && cp "$tree-target/release/pagedattn" dist-main/
git worktree remove --force "$tree"; rm -rf "$tree-target"
du -sh dist dist-main
