#!/usr/bin/env bash
# Call 5: the decode rule's fine-split exception with its key limit at 2048
# (after call 4's draw): a fourth short-decode draw (--short-decode-holdout3)
# with main's start (base-pagedattn), this build and m128dv forced,
# FlashInfer beside. Carry ["dist", ".peers"].
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files ab abh peer *.log 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
for m in short-decode-holdout3; do python3 scripts/make-sweep-workloads.py --$m dist/$m.jsonl > /dev/null; done
P=dist/pagedattn
export FLASHINFER_DISABLE_JIT=1
OUT="$OUT/peer" timeout 80 bash .peers/flashinfer/device_run.sh --workloads sdh3=dist/short-decode-holdout3.jsonl \
  --backends fa2,fa3 --deadline-s 65 --target-ms 30 --no-prebuild > "$OUT/peer.log" 2>&1
echo "peer rc=$? $(( $(date +%s) - t0 ))s"
AB_PEER=$OUT/peer/results.json AB_TIMEOUT=60 OUT=$OUT/abh bash scripts/device-ab.sh base=dist/base-pagedattn \
  m128dv=$P@--tile=m128dv new=$P -- --workloads dist/short-decode-holdout3.jsonl > "$OUT/abh.txt" 2>&1
echo "holdout $(( $(date +%s) - t0 ))s"; sed -n '/^| workload/,$p' "$OUT/abh.txt"
mkdir -p "$OUT/j" && for d in abh; do for f in "$OUT"/$d/*.json; do cp "$f" "$OUT/j/$d-$(basename "$f")"; done; done; cp "$OUT"/peer/results.json "$OUT/j/flashinfer-peer-sdh3.json" 2>/dev/null
(cd "$OUT" && tar czf json.tgz j && rm -rf j)
