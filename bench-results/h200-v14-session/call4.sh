#!/usr/bin/env bash
# Device call 4 (eighth session): K/V rows prefetched into L2 one block
# before their cp.asyncs (dist/var/l2pf: l2pf-bulk-variant.patch with the
# producer at 64 registers and a 64-bit offset; a bulk L2
# prefetch of 256 bytes per K and V row by one lane per row, producer
# registers 56 -> 64 to keep m128 free of spills) against the shipped build
# and p64 (producer registers 64 alone), two rounds, on cached-prefix, long,
# short and batch rows; memcheck of l2pf (device plan, split.jsonl + 6
# generated); ncu speed-of-light/memory/stall sections of the shipped build
# on prefix_q128_kv4096_b4 and scale_single_4096.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
for d in /usr/local/cuda/bin /usr/local/cuda/compute-sanitizer; do [ -d "$d" ] && PATH="$PATH:$d"; done
t0=$(date +%s)
timeout 45 compute-sanitizer --tool memcheck --error-exitcode 9 $D/pagedattn check --backend cuda --cpu-ref-max-pairs 0 \
  --attention-cubin $D/var/l2pf.cubin --plan device --workloads $D/split.jsonl --generated 6 > "$OUT/san_l2pf_memcheck.log" 2>&1
echo "memcheck (l2pf) rc=$? $(grep -E 'SUMMARY' $OUT/san_l2pf_memcheck.log | tail -1) | $(grep -E 'workloads:' $OUT/san_l2pf_memcheck.log | tail -1) | $(( $(date +%s) - t0 ))s"
W=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/prefix.jsonl --workloads $D/shapes.jsonl
   --filter prefix --filter seed07 --filter seed09 --filter seed11 --filter seed15 --filter seed18 --filter seed19 --filter seed00 --filter seed02
   --filter scale_single_2048 --filter scale_single_4096 --filter scale_single_8192 --filter batch)
cfg() { echo "$1=$D/pagedattn@--attention-cubin=$D/var/$1.cubin"; }
AB_ROUNDS=2 AB_TIMEOUT=60 OUT=$OUT/ab bash scripts/device-ab.sh shipped=$D/pagedattn $(cfg p64) $(cfg l2pf) -- "${W[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"
for w in prefix_q128_kv4096_b4 scale_single_4096; do
  f=$D/prefix.jsonl; [ $w = scale_single_4096 ] && f=$D/scale.jsonl
  timeout 100 ncu --clock-control none --kernel-name regex:paged_prefill --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats \
    --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis -o "$OUT/row_$w" \
    $D/pagedattn bench --backend cuda --no-check --reps 1 --warmup 0 --cuda-timing checked --workloads $f --filter "$w" > "$OUT/row_$w.txt" 2>&1
  ncu -i "$OUT/row_$w.ncu-rep" --page details > "$OUT/row_${w}_details.txt" 2>&1
  ncu -i "$OUT/row_$w.ncu-rep" --page raw --csv > "$OUT/row_$w.csv" 2>&1
  echo "ncu $w: $(grep -m1 -E 'Duration' "$OUT/row_${w}_details.txt") $(( $(date +%s) - t0 ))s"
  rm -f "$OUT/row_$w.ncu-rep"
done
cd "$OUT" && mkdir -p j && cp ab/*.json j/ 2>/dev/null
tar czf logs.tgz --exclude=logs.tgz --exclude=j * && tar czf json.tgz j && rm -rf ab j *.log
grep -vE "^\s*$" ab.txt | head -60
echo "total $(( $(date +%s) - t0 ))s"
