#!/usr/bin/env bash
# Builds the CLI and the GPU test binary (release) and collects them, the
# cubins and the workload files in dist/ (git-ignored) for a GPU machine.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --bin pagedattn
test_bin() {  # path of the release test binary of tests/$1.rs
  cargo test --release --no-run --test "$1" --message-format=json 2>/dev/null | python3 -c 'import sys,json
for l in sys.stdin:
    m=json.loads(l)
    if m.get("reason")=="compiler-artifact" and m.get("executable") and m["target"]["name"]==sys.argv[1]: print(m["executable"])' "$1"
}
gpu=$(test_bin gpu)
rel=$(test_bin gpu_reliability)
rm -rf dist && mkdir -p dist
cp target/release/pagedattn dist/
cp "$gpu" dist/gpu_tests
cp "$rel" dist/gpu_reliability
strip dist/pagedattn dist/gpu_tests dist/gpu_reliability
cp target/kernels/*.cubin target/kernels/ptxas_report.txt workloads/*.jsonl dist/
ls -la dist
