#!/usr/bin/env bash
# Eighteenth session: what call2.sh carries (carry ["dist", "dist-main"]):
# dist from this tree (the refitted prefers_m192) with holdout.jsonl,
# holdout2.jsonl and decode.jsonl; dist/var/unitcost.cubin and
# dist/var/merge2.cubin (MERGE2_SRC: the kernels with the rolling merge);
# dist-main/pagedattn from 58d2020 (prepare-next.sh of the seventeenth
# session builds it).
set -euo pipefail
cd "$(dirname "$0")/../.."
export PAGEDATTN_TOOLCHAIN_DIR=${PAGEDATTN_TOOLCHAIN_DIR:-$PWD/.toolchain/cuda}
rm -rf dist && bash scripts/dist.sh > /dev/null
rm -f dist/example_gpu dist/attention.cubin dist/gpu_tests dist/gpu_reliability
python3 scripts/make-sweep-workloads.py --holdout dist/holdout.jsonl
python3 scripts/make-sweep-workloads.py --holdout2 dist/holdout2.jsonl
python3 bench-results/h200-v24-session/make-decode-workloads.py dist/decode.jsonl
rm -rf /tmp/var-unitcost && python3 scripts/variant-src.py unitcost /tmp/var-unitcost
SRC=/tmp/var-unitcost bash scripts/build-variant.sh unitcost
SRC=${MERGE2_SRC:?the kernels with the rolling merge} bash scripts/build-variant.sh merge2
du -sh dist dist-main
