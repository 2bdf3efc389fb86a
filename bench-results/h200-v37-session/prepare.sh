#!/usr/bin/env bash
# Builds everything call1.sh and call2.sh carry in dist/ (run on the build
# machine, from the repository root, on a clean tree of main):
#   dist/ by scripts/dist.sh (the serving set and the binaries the calls do
#   not use removed: the carry limit is 64 MiB), dist/var/{codepf, codepf2,
#   timeline, codepftl}.cubin, and dist/m64ru/, dist/dtiles/ from the
#   branches next-m64-row-units and next-decode-tiles (worktrees in /tmp);
#   ~7 minutes on the build machine. The timeline variants spill (their
#   printf), as before.
#   bash bench-results/h200-v37-session/prepare.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
export PAGEDATTN_TOOLCHAIN_DIR=${PAGEDATTN_TOOLCHAIN_DIR:-$PWD/.toolchain/cuda}
bash scripts/dist.sh > /tmp/prepare-dist.log 2>&1 || { tail -20 /tmp/prepare-dist.log; exit 1; }
rm -f dist/{example_gpu,gpu_reliability,serving.jsonl,reference.cubin,prefix.jsonl,shapes.jsonl,attention.cubin}
for v in codepf codepf2 timeline codepftl; do
  python3 scripts/variant-src.py "$v" "/tmp/prepare-$v" > /dev/null
  SRC="/tmp/prepare-$v" bash scripts/build-variant.sh "$v" > "/tmp/prepare-$v.log" 2>&1 || { tail -20 "/tmp/prepare-$v.log"; exit 1; }
  if grep -qE "spill stores, [1-9]" "/tmp/prepare-$v.log"; then echo "note: $v spills"; fi
done
for b in next-m64-row-units:m64ru next-decode-tiles:dtiles; do
  branch=${b%%:*}; name=${b#*:}; wt=/tmp/prepare-wt-$name
  git rev-parse -q --verify "$branch" > /dev/null || { echo "note: no branch $branch"; continue; }
  git worktree remove --force "$wt" 2>/dev/null || true
  git worktree add -q "$wt" "$branch"
  (cd "$wt" && bash scripts/dist.sh > "/tmp/prepare-$name.log" 2>&1) \
    || { tail -20 "/tmp/prepare-$name.log"; exit 1; }
  mkdir -p "dist/$name"
  cp "$wt/dist/pagedattn" "$wt/dist/gpu_tests" "dist/$name/"
  git worktree remove --force "$wt"
done
# call2.sh runs the GPU tests of m64ru only: the other two test binaries
# would take the carry past 64 MiB.
rm -f dist/gpu_tests dist/dtiles/gpu_tests
mkdir -p dist/var
du -sh dist
ls dist dist/var; ls dist/m64ru dist/dtiles 2>/dev/null || true
