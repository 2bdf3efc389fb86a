#!/usr/bin/env bash
# Call 2: the row split (chunks of one block for decode-like calls of one or
# two queries a sequence in one wave, units::row_split_possible) and m64 for
# such calls (schedule::decode_prefers_m128dv): (1) this build against v17.5
# (base-pagedattn) on the four short-decode draws and the split set, three
# rounds; (2) host plan against device plan on them (outputs bitwise equal);
# (3) the GPU tests; (4) the four sanitizers over the short-decode draws, m64
# and m128dv, the device plan; (5) the main sets against v17.5, one round.
# Carry ["dist"].
set -u
for d in /usr/local/cuda/bin /usr/local/cuda/compute-sanitizer; do [ -d "$d" ] && PATH="$PATH:$d"; done
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files ab abp abm *.log 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
W=()
for m in short-decode short-decode-holdout short-decode-holdout2 short-decode-holdout3; do
  python3 scripts/make-sweep-workloads.py --$m dist/$m.jsonl > /dev/null; W+=(--workloads dist/$m.jsonl)
done
python3 scripts/make-shapes-workloads.py --serving dist/serving.jsonl > /dev/null
P=dist/pagedattn
AB_ROUNDS=3 AB_TIMEOUT=60 OUT=$OUT/ab bash scripts/device-ab.sh base=dist/base-pagedattn new=$P \
  -- "${W[@]}" --workloads dist/split.jsonl > "$OUT/ab.txt" 2>&1
echo "row split $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$OUT/ab.txt" | head -3; sed -n '/^| workload/,$p' "$OUT/ab.txt"
AB_TIMEOUT=60 OUT=$OUT/abp bash scripts/device-ab.sh host=$P device=$P@--plan=device -- "${W[@]}" --workloads dist/split.jsonl > "$OUT/abp.txt" 2>&1
echo "plans $(( $(date +%s) - t0 ))s"; grep -E "rc=|output bits|geomean" "$OUT/abp.txt"
TESTS_TIMEOUT=150 bash scripts/device-run.sh tests > "$OUT/tests.log" 2>&1
grep -E "^gpu tests" "$OUT/tests.log"; grep -E "panicked" "$OUT/gpu_tests.log" | head -5
echo "tests $(( $(date +%s) - t0 ))s"
cat dist/short-decode*.jsonl > /tmp/sdall.jsonl
for tile in m64 m128dv; do
  for tool in memcheck racecheck synccheck initcheck; do
    [ $(( $(date +%s) - t0 )) -gt 420 ] && { echo "$tile $tool skipped (time)"; continue; }
    timeout 50 compute-sanitizer --tool $tool --error-exitcode 9 $P check --backend cuda \
      --cpu-ref-max-pairs 0 --tile $tile --plan device --workloads /tmp/sdall.jsonl > "$OUT/san_${tile}_$tool.log" 2>&1
    echo "$tile $tool rc=$? $(grep -E 'SUMMARY' "$OUT/san_${tile}_$tool.log" | tail -1) $(grep -cE 'Race reported|Error:|Hazard' "$OUT/san_${tile}_$tool.log") reports; $(grep -E '^[0-9]+ workloads?:' "$OUT/san_${tile}_$tool.log")"
  done
done
if [ $(( $(date +%s) - t0 )) -lt 430 ]; then
  AB_TIMEOUT=130 OUT=$OUT/abm bash scripts/device-ab.sh base=dist/base-pagedattn new=$P -- --workloads dist/seed.jsonl \
    --workloads dist/scale.jsonl --workloads dist/shapes.jsonl --workloads dist/prefix.jsonl --workloads dist/serving.jsonl > "$OUT/abm.txt" 2>&1
  echo "main sets $(( $(date +%s) - t0 ))s"; grep -E "rc=|output bits|geomean" "$OUT/abm.txt"
fi
mkdir -p "$OUT/j" && for d in ab abp abm; do for f in "$OUT"/$d/*.json; do [ -f "$f" ] && cp "$f" "$OUT/j/$d-$(basename "$f")"; done; done
(cd "$OUT" && tar czf json.tgz j && rm -rf j)
