#!/usr/bin/env bash
# Device call 6 (seventh session).
#   spec3     the fast path with a rebase that works: the reference moves
#             up by k = the exponent above the largest exponential and the
#             block is rescaled by exp2(old - new) (spec2's rebase demanded
#             old + k exact in fp32 and so never ran: call 5 counted every
#             failing vote recomputing S; the rows that fail are those that
#             saw one key of their diagonal block)
#   count3    spec3 with the counters of call 5
# Counters first, then GPU tests and reliability on spec3, then two rounds
# of base, spec3 and novote (the fast path without vote or fallback, timing
# only) on seed + scale + prefix.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
t0=$(date +%s)
for f in seed07 seed10 seed11 scale_single_1024 scale_single_8192 prefix_q128_kv4096 prefix_q256_kv4096; do
  timeout 60 $D/pagedattn bench --attention-cubin $D/var/count3.cubin --workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/prefix.jsonl --filter $f > "$OUT/count-$f.txt" 2>&1
  grep DIAG "$OUT/count-$f.txt" | awk -v f=$f 'NR==2{a=$3;b=$5;c=$7;d=$9} END{printf "%-22s launches %d attempts/launch %.0f wgfail %.4f recompute %.4f threadfail/attempt %.3f\n", f, NR-2, ($3-a)/(NR-2), ($5-b)/($3-a+1e-9), ($7-c)/($3-a+1e-9), ($9-d)/($3-a+1e-9)}'
done
echo "counters $(( $(date +%s) - t0 ))s"
PAGEDATTN_ATTENTION_CUBIN=$D/var/spec3.cubin timeout 200 $D/gpu_tests --include-ignored --test-threads=1 --nocapture > "$OUT/gpu_tests.log" 2>&1
echo "gpu_tests (spec3) rc=$? $(grep -E '^test result' $OUT/gpu_tests.log) $(( $(date +%s) - t0 ))s"
grep -E "panicked|FAILED|late reference" "$OUT/gpu_tests.log" | head -8
PAGEDATTN_ATTENTION_CUBIN=$D/var/spec3.cubin timeout 90 $D/gpu_reliability --include-ignored --test-threads=1 --nocapture > "$OUT/gpu_reliability.log" 2>&1
echo "gpu_reliability (spec3) rc=$? $(grep -E '^test result' $OUT/gpu_reliability.log) $(( $(date +%s) - t0 ))s"
grep -E "panicked|FAILED" "$OUT/gpu_reliability.log" | head -5
W=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/prefix.jsonl)
cfg() { echo "$1=$D/pagedattn@--attention-cubin=$D/var/$1.cubin"; }
left=$(( 570 - ($(date +%s) - t0) ))
AB_ROUNDS=2 AB_TIMEOUT=$(( left / 6 )) OUT=$OUT/ab bash scripts/device-ab.sh $(cfg base) $(cfg spec3) $(cfg novote) -- "${W[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"
cd "$OUT" && mkdir -p j && cp ab/*.json j/ 2>/dev/null
tar czf logs.tgz --exclude=logs.tgz --exclude=j * && tar czf json.tgz j && rm -rf ab j *.log count-*.txt
cat ab.txt | grep -vE "^\s*$" | head -80
echo "total $(( $(date +%s) - t0 ))s"
