#!/usr/bin/env bash
# Call 1 (twenty-third session): (1) the decode rule's fine-split exception
# at its 2048-key limit on a fourth fresh draw (--short-decode-holdout3):
# v17.4 (base-pagedattn), this build and m128dv forced, FlashInfer beside
# (the twenty-second session's call 5); (2) the GPU tests on d9e7cee's build;
# (3) forced splits of 1-4 blocks on m64 and m128dv on the first short-decode
# draw (the calls of few units still above FlashInfer); (4) the four sanitizers over the one-wave fine split (the short-decode
# draws: 256-key chunks, the spread merge), m64 and m128dv, the device plan.
# Carry ["dist", ".peers"].
set -u
for d in /usr/local/cuda/bin /usr/local/cuda/compute-sanitizer; do [ -d "$d" ] && PATH="$PATH:$d"; done
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files abh abs peer *.log 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
for m in short-decode short-decode-holdout3; do python3 scripts/make-sweep-workloads.py --$m dist/$m.jsonl > /dev/null; done
P=dist/pagedattn
export FLASHINFER_DISABLE_JIT=1
OUT="$OUT/peer" timeout 80 bash .peers/flashinfer/device_run.sh --workloads sdh3=dist/short-decode-holdout3.jsonl \
  --backends fa2,fa3 --deadline-s 65 --target-ms 30 --no-prebuild > "$OUT/peer.log" 2>&1
echo "peer rc=$? $(( $(date +%s) - t0 ))s"
AB_PEER=$OUT/peer/results.json AB_TIMEOUT=60 OUT=$OUT/abh bash scripts/device-ab.sh base=dist/base-pagedattn \
  m128dv=$P@--tile=m128dv new=$P -- --workloads dist/short-decode-holdout3.jsonl > "$OUT/abh.txt" 2>&1
echo "holdout $(( $(date +%s) - t0 ))s"; sed -n '/^| workload/,$p' "$OUT/abh.txt"
TESTS_TIMEOUT=200 bash scripts/device-run.sh tests > "$OUT/tests.log" 2>&1
grep -E "^gpu tests" "$OUT/tests.log"; grep -E "panicked" "$OUT/gpu_tests.log" | head -5
echo "tests $(( $(date +%s) - t0 ))s"
AB_TIMEOUT=45 OUT=$OUT/abs bash scripts/device-ab.sh new=$P m64s1=$P@--tile=m64,--split=1 m64s2=$P@--tile=m64,--split=2 \
  m64s4=$P@--tile=m64,--split=4 m128dvs1=$P@--tile=m128dv,--split=1 m128dvs2=$P@--tile=m128dv,--split=2 \
  -- --workloads dist/short-decode.jsonl > "$OUT/abs.txt" 2>&1
echo "short splits $(( $(date +%s) - t0 ))s"; sed -n '/^| workload/,$p' "$OUT/abs.txt"
cat dist/short-decode.jsonl dist/short-decode-holdout3.jsonl > /tmp/sdall.jsonl
for tile in m64 m128dv; do
  for tool in memcheck racecheck synccheck initcheck; do
    [ $(( $(date +%s) - t0 )) -gt 520 ] && { echo "$tile $tool skipped (time)"; continue; }
    timeout 50 compute-sanitizer --tool $tool --error-exitcode 9 $P check --backend cuda \
      --cpu-ref-max-pairs 0 --tile $tile --plan device --workloads /tmp/sdall.jsonl > "$OUT/san_${tile}_$tool.log" 2>&1
    echo "$tile $tool rc=$? $(grep -E 'SUMMARY' "$OUT/san_${tile}_$tool.log" | tail -1) $(grep -cE 'Race reported|Error:|Hazard' "$OUT/san_${tile}_$tool.log") reports; $(grep -E '^[0-9]+ workloads?:' "$OUT/san_${tile}_$tool.log")"
  done
done
mkdir -p "$OUT/j" && cp "$OUT"/abh/*.json "$OUT/j/" 2>/dev/null; for f in "$OUT"/abs/*.json; do cp "$f" "$OUT/j/abs-$(basename "$f")"; done; cp "$OUT"/peer/results.json "$OUT/j/flashinfer-peer-sdh3.json" 2>/dev/null
(cd "$OUT" && tar czf json.tgz j && rm -rf j)
