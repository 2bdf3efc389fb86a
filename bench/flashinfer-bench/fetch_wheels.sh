#!/usr/bin/env bash
# Lays out, in git-ignored folders of the repo, what device_run.sh installs on the GPU
# machine (which has no network; it already has torch, numpy, safetensors, pyyaml,
# filelock, einops, requests):
#   .whl/  flashinfer-bench (git main 40e6ca78 built here, and the 0.1.2 release) and the
#          dependencies the GPU machine lacks: pydantic (+ core, annotated-types,
#          typing-extensions, typing-inspection), docstring-parser, nvidia-ml-py (pynvml,
#          imported by flashinfer.testing)
#   .peers/flashinfer/  FlashInfer's trimmed package, its two prebuilt modules, tvm-ffi and
#          cupti-python (the FlashInfer peer harness), copied from $PEER_SRC
# Needs PyPI. FIB_SRC: a git repository (bare is fine) of flashinfer-ai/flashinfer-bench
# holding commit 40e6ca78.
#   FIB_SRC=/path/to/flashinfer-bench.git PEER_SRC=/path/to/.peers/flashinfer bash bench/flashinfer-bench/fetch_wheels.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
FIB_COMMIT=40e6ca7844b514eb4b1c7edba6d6a7377df57870
mkdir -p .whl
P="--no-deps --only-binary=:all: --python-version 3.12 --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 --platform manylinux1_x86_64 -d .whl"
python3 -m pip download -q $P pydantic==2.14.4 pydantic-core==2.50.5 annotated-types==0.8.0 \
  typing-extensions==4.16.0 typing-inspection==0.4.5 docstring-parser==0.18.0 \
  nvidia-ml-py==13.615.71 flashinfer-bench==0.1.2
if ! ls .whl/flashinfer_bench-0.1.3.dev0*.whl >/dev/null 2>&1; then
  : "${FIB_SRC:?set FIB_SRC to a git repository of flashinfer-bench (commit $FIB_COMMIT)}"
  tmp=$(mktemp -d)
  git --git-dir="$(git -C "$FIB_SRC" rev-parse --absolute-git-dir)" archive "$FIB_COMMIT" | tar -x -C "$tmp"
  SETUPTOOLS_SCM_PRETEND_VERSION=0.1.3.dev0+g40e6ca78 python3 -m pip wheel -q --no-deps -w .whl "$tmp"
  rm -rf "$tmp"
fi
if [ ! -f .peers/flashinfer/pkgs/aot_so.tar.xz ]; then
  : "${PEER_SRC:?set PEER_SRC to the FlashInfer peer folder (with pkgs/ and pkgs/aot_so.tar.xz)}"
  mkdir -p .peers && rm -rf .peers/flashinfer && cp -r "$PEER_SRC" .peers/flashinfer
fi
ls -la .whl .peers/flashinfer/pkgs
du -ch .whl/*.whl .peers/flashinfer/pkgs/* dist/wheels/*.whl 2>/dev/null | tail -1
