#!/usr/bin/env bash
# Prepared in the sixteenth session: builds here (about 4 minutes, with the
# toolchain of scripts/install-cuda-toolchain.sh) what next-call1.sh
# carries to the GPU machine (carry ["dist"]): dist/ from main with
# m192.patch applied (the 192-row tile, forced only), and the cached-prefix
# sweeps of scripts/make-sweep-workloads.py (dist/sweep.jsonl, 7 MB).
# Leaves the working tree as it was.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PAGEDATTN_TOOLCHAIN_DIR=${PAGEDATTN_TOOLCHAIN_DIR:-$PWD/.toolchain/cuda}
tree=$(mktemp -d)
git worktree add -q --detach "$tree" HEAD
(cd "$tree" && git apply bench-results/h200-v22-session/m192.patch && rm -rf dist && bash scripts/dist.sh > /dev/null)
rm -rf dist && cp -r "$tree/dist" dist
git worktree remove --force "$tree"
python3 scripts/make-sweep-workloads.py dist/sweep.jsonl
rm -f dist/example_gpu  # room under the 64 MiB a call carries
grep -A2 "paged_prefill_m192'" dist/ptxas_report.txt | tail -1
du -sh dist
