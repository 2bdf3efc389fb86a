#!/usr/bin/env bash
# Call 4: the one-wave fine split and the decode rule's fine-split exception
# (m64): a fresh short-decode draw (--short-decode-holdout2) with main's
# start (base-pagedattn), this build and m128dv forced, FlashInfer beside;
# the GPU tests; host plan against device plan on the short-decode sets and
# the wide draw (outputs bitwise equal where the kernel's split mirrors the
# host's); every main set against main's start, one round, if time is left.
# Carry ["dist", ".peers"].
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files ab abh abm peer *.log 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
for m in short-decode short-decode-holdout short-decode-holdout2; do python3 scripts/make-sweep-workloads.py --$m dist/$m.jsonl > /dev/null; done
python3 scripts/make-shapes-workloads.py --wide dist/wide.jsonl > /dev/null
python3 scripts/make-shapes-workloads.py --serving dist/serving.jsonl > /dev/null
P=dist/pagedattn
export FLASHINFER_DISABLE_JIT=1
OUT="$OUT/peer" timeout 80 bash .peers/flashinfer/device_run.sh --workloads sdh2=dist/short-decode-holdout2.jsonl \
  --backends fa2,fa3 --deadline-s 65 --target-ms 30 --no-prebuild > "$OUT/peer.log" 2>&1
echo "peer rc=$? $(( $(date +%s) - t0 ))s"
AB_PEER=$OUT/peer/results.json AB_TIMEOUT=60 OUT=$OUT/abh bash scripts/device-ab.sh base=dist/base-pagedattn \
  m128dv=$P@--tile=m128dv new=$P -- --workloads dist/short-decode-holdout2.jsonl > "$OUT/abh.txt" 2>&1
echo "holdout $(( $(date +%s) - t0 ))s"; sed -n '/^| workload/,$p' "$OUT/abh.txt"
TESTS_TIMEOUT=200 bash scripts/device-run.sh tests > "$OUT/tests.log" 2>&1
grep -E "^gpu tests" "$OUT/tests.log"; grep -E "panicked" "$OUT/gpu_tests.log" | head -5
echo "tests $(( $(date +%s) - t0 ))s"
AB_TIMEOUT=120 OUT=$OUT/ab bash scripts/device-ab.sh host=$P device=$P@--plan=device -- --workloads dist/short-decode.jsonl \
  --workloads dist/short-decode-holdout.jsonl --workloads dist/short-decode-holdout2.jsonl --workloads dist/wide.jsonl > "$OUT/ab.txt" 2>&1
echo "plans $(( $(date +%s) - t0 ))s"; grep -E "rc=|output bits|geomean" "$OUT/ab.txt"
if [ $(( $(date +%s) - t0 )) -lt 360 ]; then
  AB_TIMEOUT=130 OUT=$OUT/abm bash scripts/device-ab.sh base=dist/base-pagedattn new=$P -- --workloads dist/seed.jsonl \
    --workloads dist/scale.jsonl --workloads dist/shapes.jsonl --workloads dist/prefix.jsonl --workloads dist/serving.jsonl > "$OUT/abm.txt" 2>&1
  echo "main sets $(( $(date +%s) - t0 ))s"; grep -E "rc=|output bits|geomean" "$OUT/abm.txt"
fi
mkdir -p "$OUT/j" && cp "$OUT"/ab/*.json "$OUT"/abh/*.json "$OUT/j/" && cp "$OUT"/abm/*.json "$OUT/j/" 2>/dev/null
cp "$OUT"/peer/results.json "$OUT/j/flashinfer-peer-sdh2.json" 2>/dev/null; (cd "$OUT" && tar czf json.tgz j && rm -rf j)
