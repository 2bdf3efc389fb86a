#!/usr/bin/env bash
# Builds the CLI, the GPU test binaries and the GPU example (release) and
# collects them, the cubins, the ptxas report and the workload files (and
# the generated serving set) in dist/
# (git-ignored) for a GPU machine without a Rust toolchain
# (scripts/device-run.sh runs them there). The test binaries and the example
# embed the kernels and the workload sets; nothing else is needed to run them.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(bash scripts/kernel-out-dir.sh)
[ -f "$out/attention.cubin" ] || { echo "dist: the build has no kernels (see its warning): nothing to run on a GPU" >&2; exit 1; }
cargo build --release --example gpu -p pagedattn
test_bin() {  # path of the release test binary of crates/pagedattn/tests/$1.rs
  cargo test --release -p pagedattn --no-run --test "$1" --message-format=json 2>/dev/null | python3 -c 'import sys,json
for l in sys.stdin:
    m=json.loads(l)
    if m.get("reason")=="compiler-artifact" and m.get("executable") and m["target"]["name"]==sys.argv[1]: print(m["executable"])' "$1"
}
gpu=$(test_bin gpu)
rel=$(test_bin gpu_reliability)
rm -rf dist && mkdir -p dist
cp target/release/pagedattn dist/
cp target/release/examples/gpu dist/example_gpu
cp "$gpu" dist/gpu_tests
cp "$rel" dist/gpu_reliability
strip dist/pagedattn dist/gpu_tests dist/gpu_reliability dist/example_gpu
cp "$out"/*.cubin "$out/ptxas_report.txt" workloads/*.jsonl dist/
# The serving set (decode-like and serving-engine calls, ~10 MB): generated, not tracked.
python3 scripts/make-shapes-workloads.py --serving dist/serving.jsonl > /dev/null
ls -la dist
