#!/usr/bin/env bash
# Builds the CLI and the GPU test binary (release) and collects them, the
# cubins and the workload files in dist/ (git-ignored) for a GPU machine.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --bin pagedattn
tests=$(cargo test --release --no-run --test gpu --message-format=json 2>/dev/null \
  | python3 -c 'import sys,json
for l in sys.stdin:
    m=json.loads(l)
    if m.get("reason")=="compiler-artifact" and m.get("executable") and m["target"]["name"]=="gpu": print(m["executable"])')
rm -rf dist && mkdir -p dist
cp target/release/pagedattn dist/
cp "$tests" dist/gpu_tests
strip dist/pagedattn dist/gpu_tests
cp target/kernels/*.cubin target/kernels/ptxas_report.txt workloads/*.jsonl dist/
ls -la dist
