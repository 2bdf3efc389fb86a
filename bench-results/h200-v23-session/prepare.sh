#!/usr/bin/env bash
# Seventeenth session: builds the three trees the first calls carry.
#   dist-main/  main's dist (the host changes 17d09cf, ff52901, 5689d3f
#               never ran on a GPU)
#   dist/       main + m128p.patch, with dist/sweep.jsonl
#   dist-m192/  main + m192.patch: the CLI and the prefix workloads only
set -euo pipefail
cd "$(dirname "$0")/../.."
export PAGEDATTN_TOOLCHAIN_DIR=${PAGEDATTN_TOOLCHAIN_DIR:-$PWD/.toolchain/cuda}
rm -rf dist && bash scripts/dist.sh > /dev/null
rm -rf dist-main && cp -r dist dist-main && rm -f dist-main/example_gpu
bash bench-results/h200-v22-session/prepare-next.sh m128p
tree=$(mktemp -d)
git worktree add -q --detach "$tree" HEAD
(cd "$tree" && git apply bench-results/h200-v22-session/m192.patch && rm -rf dist && bash scripts/dist.sh > /dev/null)
rm -rf dist-m192 && mkdir dist-m192
cp "$tree/dist/pagedattn" "$tree/dist/prefix.jsonl" dist-m192/ && cp dist/sweep.jsonl dist-m192/
git worktree remove --force "$tree"
du -sh dist dist-main dist-m192
