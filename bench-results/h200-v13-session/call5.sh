#!/usr/bin/env bash
# Device call 5 (seventh session): how often the fast path fails. The
# diagnostic build `count` (spec2 plus global counters, printed by CTA 0 at
# each launch's start): per workload, fast-path attempts (warpgroup x block),
# warpgroup votes failed, recomputes, threads failed.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
for f in seed07 seed10 seed11 seed13 seed12 seed18 scale_single_1024 scale_single_8192 prefix_q128_kv4096 prefix_q256_kv4096 prefix_q512_kv16384; do
  timeout 60 $D/pagedattn bench --attention-cubin $D/var/count.cubin --workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/prefix.jsonl --filter $f > "$OUT/count-$f.txt" 2>&1
  grep DIAG "$OUT/count-$f.txt" | awk -v f=$f 'NR==2{a=$3;b=$5;c=$7;d=$9} END{printf "%-22s launches %d attempts/launch %.0f wgfail %.4f recompute %.4f threadfail/attempt %.3f\n", f, NR-2, ($3-a)/(NR-2), ($5-b)/($3-a+1e-9), ($7-c)/($3-a+1e-9), ($9-d)/($3-a+1e-9)}'
done
cd "$OUT" && tar czf logs.tgz count-*.txt && rm count-*.txt
