#!/usr/bin/env bash
# Device call 1 (eighth session): m64 with 128-key blocks, two forms
# (dist/var/n128: 2 stages, 1 CTA per SM, m64-n128-variant.patch; n128s1: 1 stage, 2 CTAs
# per SM, m64-n128s1-variant.patch), against the shipped build on the
# rows that take m64 (seed00-06, 09, 12, 14, 16-18) plus seed07 and
# batch64x512; two rounds. Then ncu source-level samples of the shipped
# build on seed00 (m64 direct) and seed07 (m128 direct): how much of a
# short call waits on instruction fetch.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
for d in /usr/local/cuda/bin; do [ -d "$d" ] && PATH="$PATH:$d"; done
t0=$(date +%s)
W=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl
   --filter seed0 --filter seed12 --filter seed14 --filter seed16 --filter seed17 --filter seed18 --filter batch64x512)
cfg() { echo "$1=$D/pagedattn@--attention-cubin=$D/var/$1.cubin"; }
AB_ROUNDS=2 AB_TIMEOUT=45 OUT=$OUT/ab bash scripts/device-ab.sh shipped=$D/pagedattn $(cfg n128) $(cfg n128s1) -- "${W[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"
for w in seed00 seed07; do
  timeout 100 ncu --clock-control none --kernel-name regex:paged_prefill --launch-count 1 --launch-skip 5 --set full --import-source yes \
    -o "$OUT/src_$w" $D/pagedattn bench --backend cuda --no-check --reps 3 --warmup 3 --cuda-timing checked \
    --workloads $D/seed.jsonl --filter $w > "$OUT/ncu_$w.txt" 2>&1
  echo "ncu $w rc=$? $(( $(date +%s) - t0 ))s"
  ncu -i "$OUT/src_$w.ncu-rep" --page source --csv --print-source sass > "$OUT/src_${w}_sass.csv" 2>&1
  ncu -i "$OUT/src_$w.ncu-rep" --page details > "$OUT/src_${w}_details.txt" 2>&1
  grep -E "Duration|Warp Cycles Per Issued|No Eligible" "$OUT/src_${w}_details.txt" | head -4
  rm -f "$OUT/src_$w.ncu-rep"
done
cd "$OUT" && mkdir -p j && cp ab/*.json j/ 2>/dev/null
tar czf logs.tgz --exclude=logs.tgz --exclude=j --exclude='*.csv' * && tar czf json.tgz j && rm -rf ab j *.log
grep -vE "^\s*$" ab.txt | head -40
echo "total $(( $(date +%s) - t0 ))s"
