#!/usr/bin/env bash
# Call 3: (1) the main sets' many-unit rows, v17.5 (base-pagedattn) against
# this build, three rounds (2-9% slower in call 2, whose build had a 4-byte
# producer spill in m64; none in this one); (2) the row split on a fresh
# draw (--row-decode: 20 decode-like calls of one or two queries a sequence,
# drawn after the rule was fitted) and the first and fourth short-decode
# draws, two rounds; (3) FlashInfer fa2/fa3 on the fresh draw if time is
# left. Carry ["dist", ".peers"].
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files ab abm peer *.log 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
for m in row-decode short-decode short-decode-holdout3; do python3 scripts/make-sweep-workloads.py --$m dist/$m.jsonl > /dev/null; done
python3 scripts/make-shapes-workloads.py --serving dist/serving.jsonl > /dev/null
P=dist/pagedattn
AB_ROUNDS=3 AB_TIMEOUT=60 OUT=$OUT/abm bash scripts/device-ab.sh base=dist/base-pagedattn new=$P -- --workloads dist/seed.jsonl \
  --workloads dist/scale.jsonl --workloads dist/shapes.jsonl --workloads dist/serving.jsonl --filter seed09 --filter seed1 \
  --filter tiny --filter q_gt --filter empty --filter serving_mix --filter scale_batch64 > "$OUT/abm.txt" 2>&1
echo "main rows $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$OUT/abm.txt" | head -2; sed -n '/^| workload/,$p' "$OUT/abm.txt"
AB_ROUNDS=2 AB_TIMEOUT=50 OUT=$OUT/ab bash scripts/device-ab.sh base=dist/base-pagedattn new=$P \
  -- --workloads dist/row-decode.jsonl --workloads dist/short-decode.jsonl --workloads dist/short-decode-holdout3.jsonl > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$OUT/ab.txt" | head -2; sed -n '/^| workload/,$p' "$OUT/ab.txt"
if [ $(( $(date +%s) - t0 )) -lt 200 ]; then
  export FLASHINFER_DISABLE_JIT=1
  OUT="$OUT/peer" timeout 70 bash .peers/flashinfer/device_run.sh --workloads rdec=dist/row-decode.jsonl \
    --backends fa2,fa3 --deadline-s 55 --target-ms 30 --no-prebuild > "$OUT/peer.log" 2>&1
  echo "peer rc=$? $(( $(date +%s) - t0 ))s"; sed -n '/^| /,$p' "$OUT/peer.log" | tail -25
fi
mkdir -p "$OUT/j" && for d in ab abm; do for f in "$OUT"/$d/*.json; do [ -f "$f" ] && cp "$f" "$OUT/j/$d-$(basename "$f")"; done; done
cp "$OUT"/peer/results.json "$OUT/j/flashinfer-peer-rdec.json" 2>/dev/null
(cd "$OUT" && tar czf json.tgz j && rm -rf j)
