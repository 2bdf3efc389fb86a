#!/usr/bin/env bash
# Eighteenth session: builds what call1.sh carries (carry ["dist", "dist-main"]).
set -euo pipefail
cd "$(dirname "$0")/../.."
export PAGEDATTN_TOOLCHAIN_DIR=${PAGEDATTN_TOOLCHAIN_DIR:-$PWD/.toolchain/cuda}
bash bench-results/h200-v23-session/prepare-next.sh
rm -f dist/gpu_tests dist/gpu_reliability
python3 bench-results/h200-v24-session/make-decode-workloads.py dist/decode.jsonl
for v in nogather stalekv nosplitsync unitcost; do
  rm -rf /tmp/var-$v; python3 scripts/variant-src.py $v /tmp/var-$v && SRC=/tmp/var-$v bash scripts/build-variant.sh $v
done
du -sh dist dist-main
