#!/usr/bin/env bash
# Call 3: (1) memcheck, racecheck, synccheck and initcheck over the spread
# merge (`make-sweep-workloads.py --spread`: small decode-like calls the
# automatic split cuts into 9-16 chunks in one wave), m64 and m128dv, the
# device plan (the kernel's own split); (2) the decode rule's spread-merge
# exception and the spread candidates of the split on a fresh draw
# (`--decode-holdout3`) and the spread set: new (this tree) against oldplan
# (the previous host: its rule and split, on this tree's kernels) and m64
# and m128dv forced, one round. Carry ["dist"] (with base-pagedattn, the
# previous host, and attention.cubin, this tree's kernels).
set -u
for d in /usr/local/cuda/bin /usr/local/cuda/compute-sanitizer; do [ -d "$d" ] && PATH="$PATH:$d"; done
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files ab *.log 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
B=dist/pagedattn
python3 scripts/make-sweep-workloads.py --spread /tmp/spread.jsonl > /dev/null
python3 scripts/make-sweep-workloads.py --decode-holdout3 /tmp/ho3.jsonl > /dev/null
for tile in m64 m128dv; do
  for tool in memcheck racecheck synccheck initcheck; do
    timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B check --backend cuda \
      --cpu-ref-max-pairs 0 --tile $tile --plan device --workloads /tmp/spread.jsonl > "$OUT/san_${tile}_$tool.log" 2>&1
    echo "$tile $tool rc=$? $(grep -E 'SUMMARY' "$OUT/san_${tile}_$tool.log" | tail -1) $(grep -cE 'Race reported|Error:|Hazard' "$OUT/san_${tile}_$tool.log") reports; $(grep -E '^[0-9]+ workloads?:' "$OUT/san_${tile}_$tool.log")"
  done
done
AB_ROUNDS=1 AB_TIMEOUT=150 OUT=$OUT/ab bash scripts/device-ab.sh new=$B oldplan=dist/base-pagedattn@--attention-cubin=dist/attention.cubin \
  m64=$B@--tile=m64 m128dv=$B@--tile=m128dv \
  -- --workloads /tmp/ho3.jsonl --workloads /tmp/spread.jsonl --workloads dist/serving.jsonl --filter decodeho3 --filter spread --filter long_b1 > "$OUT/ab.txt" 2>&1
mkdir -p "$OUT/j" && cp "$OUT"/ab/*.json "$OUT/j/" 2>/dev/null; (cd "$OUT" && tar czf json.tgz j && rm -rf j)
grep -E 'rc=' "$OUT/ab.txt"; sed -n '/^| workload/,$p' "$OUT/ab.txt"
