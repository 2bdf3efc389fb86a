#!/usr/bin/env bash
# Call 2 (twenty-fourth session): the one-wave chunk cost of 3 blocks for
# fine chunks merged by fragments (host and kernel). (1) the GPU tests;
# (2) v17.6 (base-pagedattn) against this build, its host and device plans,
# two rounds, on the 50 short-decode calls of call 1 (3 of them move), the
# wide draw's wide_prefix3 (moves) and the seed and prefix sets
# (unchanged plans: m192's entry now spills 32 bytes a unit again);
# (3) the four sanitizers over the four calls that move, both plans;
# (4) FlashInfer fa2/fa3 on the 50 calls. Carry ["dist", ".peers"].
set -u
for d in /usr/local/cuda/bin /usr/local/cuda/compute-sanitizer; do [ -d "$d" ] && PATH="$PATH:$d"; done
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files ab abm peer *.log 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
P=dist/pagedattn
TESTS_TIMEOUT=200 bash scripts/device-run.sh tests > "$OUT/tests.log" 2>&1
grep -E "^gpu tests" "$OUT/tests.log"; grep -E "panicked" "$OUT/gpu_tests.log" | head -5
echo "tests $(( $(date +%s) - t0 ))s"
AB_ROUNDS=2 AB_TIMEOUT=60 OUT=$OUT/ab bash scripts/device-ab.sh base=dist/base-pagedattn new=$P newdev=$P@--plan=device \
  -- --workloads dist/sdfrag.jsonl --workloads dist/changed.jsonl > "$OUT/ab.txt" 2>&1
echo "short $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$OUT/ab.txt" | grep -v "rc=0" | head; sed -n '/^| workload/,$p' "$OUT/ab.txt"
AB_ROUNDS=2 AB_TIMEOUT=90 OUT=$OUT/abm bash scripts/device-ab.sh base=dist/base-pagedattn new=$P \
  -- --workloads dist/seed.jsonl --workloads dist/prefix.jsonl > "$OUT/abm.txt" 2>&1
echo "main $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$OUT/abm.txt" | grep -v "rc=0" | head; sed -n '/^| workload/,$p' "$OUT/abm.txt" | grep -E "prefix|geomean|bits|last/first"
for plan in host device; do
  for tool in memcheck racecheck synccheck initcheck; do
    [ $(( $(date +%s) - t0 )) -gt 470 ] && { echo "$plan $tool skipped (time)"; continue; }
    timeout 40 compute-sanitizer --tool $tool --error-exitcode 9 $P check --backend cuda \
      --cpu-ref-max-pairs 0 --plan $plan --workloads dist/changed.jsonl > "$OUT/san_${plan}_$tool.log" 2>&1
    echo "$plan $tool rc=$? $(grep -E 'SUMMARY' "$OUT/san_${plan}_$tool.log" | tail -1) $(grep -cE 'Race reported|Error:|Hazard' "$OUT/san_${plan}_$tool.log") reports; $(grep -E '^[0-9]+ workloads?:' "$OUT/san_${plan}_$tool.log")"
  done
done
if [ $(( $(date +%s) - t0 )) -lt 480 ]; then
  export FLASHINFER_DISABLE_JIT=1
  OUT="$OUT/peer" timeout 90 bash .peers/flashinfer/device_run.sh --workloads sdfrag=dist/sdfrag.jsonl chg=dist/changed.jsonl \
    --backends fa2,fa3 --deadline-s 70 --target-ms 30 --no-prebuild > "$OUT/peer.log" 2>&1
  echo "peer rc=$? $(( $(date +%s) - t0 ))s"
fi
mkdir -p "$OUT/j" && for d in ab abm; do for f in "$OUT"/$d/*.json; do [ -f "$f" ] && cp "$f" "$OUT/j/$d-$(basename "$f")"; done; done
cp "$OUT"/peer/results.json "$OUT/j/flashinfer-peer-sdfrag.json" 2>/dev/null
(cd "$OUT" && tar czf json.tgz j && rm -rf j)
