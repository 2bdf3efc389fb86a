#!/usr/bin/env bash
# Prepares dist/ for call1.sh on a clean checkout of main: dist/old =
# main's build, dist/ = main with direct-host.patch applied (host code
# only: the kernels are the same, so the second build compiles Rust
# alone). The binaries are stripped and xz'd so that dist/ and .peers fit
# the 64 MiB carry. The working tree is restored at the end. Also makes
# .peers/flashinfer (the FlashInfer harness and its packages, PyPI) from
# ../shared/peers/flashinfer where it is missing.
#   bash bench-results/h200-v46-session/prep-call1.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
here=bench-results/h200-v46-session
[ -z "$(git status --porcelain --untracked-files=no)" ] || { echo "prep: commit or stash first" >&2; exit 1; }
if [ ! -f .peers/flashinfer/pkgs/flashinfer_trim.tar.xz ] && [ -d ../shared/peers/flashinfer ]; then
  mkdir -p .peers && cp -r ../shared/peers/flashinfer .peers/ && chmod -R u+w .peers
  bash .peers/flashinfer/make_pkgs.sh > /tmp/prep-peers.log
fi
export PAGEDATTN_TOOLCHAIN_DIR=${PAGEDATTN_TOOLCHAIN_DIR:-$PWD/.toolchain/cuda}
bash scripts/dist.sh > /tmp/prep-main.log
cp dist/pagedattn /tmp/prep-old-pagedattn
git apply "$here/direct-host.patch"
trap 'git -C "$root" checkout -- crates docs' EXIT
bash scripts/dist.sh > /tmp/prep-new.log
cd dist
rm -f serving.jsonl ./*.cubin example_gpu ./*.jsonl
mkdir -p old && cp /tmp/prep-old-pagedattn old/pagedattn && strip old/pagedattn
xz -f pagedattn gpu_tests gpu_reliability old/pagedattn
ls -la . old
du -sh . ../.peers 2>/dev/null || true
