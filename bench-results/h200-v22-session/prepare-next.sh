#!/usr/bin/env bash
# Prepared in the sixteenth session: builds here (about 4 minutes, with the
# toolchain of scripts/install-cuda-toolchain.sh) what the next calls carry
# to the GPU machine (carry ["dist"]): dist/ from main with one patch of
# this folder applied, and the cached-prefix sweep of
# scripts/make-sweep-workloads.py (dist/sweep.jsonl, 7 MB).
#   bash prepare-next.sh m192    # m192.patch: the 192-row tile (next-call1.sh)
#   bash prepare-next.sh m128p   # m128p.patch: the cluster pair (next-call2.sh)
# Leaves the working tree as it was.
set -euo pipefail
name=${1:-m192}
cd "$(dirname "$0")/../.."
export PAGEDATTN_TOOLCHAIN_DIR=${PAGEDATTN_TOOLCHAIN_DIR:-$PWD/.toolchain/cuda}
tree=$(mktemp -d)
git worktree add -q --detach "$tree" HEAD
(cd "$tree" && git apply bench-results/h200-v22-session/$name.patch && rm -rf dist && bash scripts/dist.sh > /dev/null)
rm -rf dist && cp -r "$tree/dist" dist
git worktree remove --force "$tree"
python3 scripts/make-sweep-workloads.py dist/sweep.jsonl
rm -f dist/example_gpu  # room under the 64 MiB a call carries
grep -A2 "paged_prefill_$name'" dist/ptxas_report.txt | tail -1
du -sh dist
