#!/usr/bin/env bash
# Call 3: forced chunk sizes on v17.9 (43b7f19's build). auto against
# --split 1, 2, 3, 4 (chunks of at most N key blocks) on the four
# short-decode draws and the wide draw, two rounds: does the cheaper merge
# move the best chunk of the short split calls? Carry ["dist"].
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files ab 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
W=()
for m in short-decode short-decode-holdout short-decode-holdout2 short-decode-holdout3; do
  python3 scripts/make-sweep-workloads.py --$m dist/$m.jsonl > /dev/null; W+=(--workloads dist/$m.jsonl); done
python3 scripts/make-shapes-workloads.py --wide dist/wide.jsonl > /dev/null; W+=(--workloads dist/wide.jsonl --filter sdec --filter wide_prefix3 --filter wide_decode)
P=dist/pagedattn
AB_ROUNDS=2 AB_TIMEOUT=150 OUT=$OUT/ab bash scripts/device-ab.sh auto=$P s1=$P@--split=1 s2=$P@--split=2 s3=$P@--split=3 s4=$P@--split=4 -- "${W[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$OUT/ab.txt" | grep -v "rc=0"; grep -E "^geomean" "$OUT/ab.txt" | cut -c1-300
sed -n '/^| workload/,$p' "$OUT/ab.txt" | grep -v "output bits" | cut -c1-120
