#!/usr/bin/env bash
# Device call 5 (eighth session): call 4 again without p64 (producer
# registers 64 deadlock the m128 kernels: 128 x 64 + 256 x 224 registers
# exceed the 384 x 168 the CTA launches with, so the consumers' setmaxnreg
# waits forever; the runs timed out). l2pf is now the bulk form with
# the producer at 56 registers (8 bytes of producer spills in m128);
# its patch is l2pf-bulk-variant.patch.
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
AB_ROUNDS=2 AB_TIMEOUT=60 OUT=$OUT/ab bash scripts/device-ab.sh shipped=$D/pagedattn l2pf=$D/pagedattn@--attention-cubin=$D/var/l2pf.cubin -- "${W[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"
cd "$OUT" && mkdir -p j && cp ab/*.json j/ 2>/dev/null
tar czf logs.tgz --exclude=logs.tgz --exclude=j * && tar czf json.tgz j && rm -rf ab j *.log
grep -vE "^\s*$" ab.txt | head -60
echo "total $(( $(date +%s) - t0 ))s"
