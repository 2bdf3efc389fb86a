#!/usr/bin/env bash
# On the GPU machine: unpacks the xz-compressed binaries under dist/ (the
# carry to it is limited in size; scripts/dist.sh's binaries compress ~5x:
#   for f in dist/pagedattn dist/gpu_tests dist/gpu_reliability; do xz -k $f; done
# then carry only the .xz files) and copies the tracked workload files in.
set -euo pipefail
cd "$(dirname "$0")/.."
D=${DIST:-dist}
while IFS= read -r f; do
  if command -v xz > /dev/null; then xz -d -k -f "$f"; else
    python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3], "wb"))' "$f"
  fi
  chmod +x "${f%.xz}"
done < <(find "$D" -name '*.xz')
cp workloads/*.jsonl "$D/"
