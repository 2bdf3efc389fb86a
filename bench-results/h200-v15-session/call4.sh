#!/usr/bin/env bash
# bf16m3: bf16m with two chunks' loads in flight in the merge (and the merging
# chunk's own values read back from its slot, which keeps it free of spills),
# and the automatic split's chunk cost lowered from 4 to 3 and 2 blocks
# (binaries dist/cc3, dist/cc2; host plan) now that a chunk is cheaper.
#   prediction: bf16m3 takes another ~0.5 us per merged chunk off the split
#   rows (call 3: the merge 0.8-2.2 us per chunk with bf16m); cc3/cc2 split
#   more of the cached-prefix rows and gain there; seed and scale rows that
#   stay unsplit unchanged (the direct kernels' SASS is the shipped one).
# Inputs: dist/var/bf16m.cubin, bf16m3.cubin (SRC=<patched kernels/> bash
# scripts/build-variant.sh NAME); dist/cc3, dist/cc2: `cargo build --release
# --bin pagedattn` of 22e50a2 with CHUNK_COST_BLOCKS128 set to 3 / 2 in
# crates/pagedattn/src/units.rs.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist; B=$D/pagedattn
t0=$(date +%s)
V=$D/var/bf16m3.cubin
PAGEDATTN_ATTENTION_CUBIN=$V timeout 100 $D/gpu_tests --include-ignored --test-threads=1 --nocapture split deterministic host_plan edge_cases random_batches > "$OUT/gpu_tests.log" 2>&1
echo "gpu_tests (bf16m3) rc=$? $(grep -E '^test result' $OUT/gpu_tests.log) $(( $(date +%s) - t0 ))s"
grep -E "panicked|FAILED" "$OUT/gpu_tests.log" | head -6
W=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/shapes.jsonl --workloads $D/prefix.jsonl
   --filter seed --filter scale_single_1024 --filter scale_single_2048 --filter scale_single_4096 --filter prefix
   --filter seq2048 --filter b16x512)
AB_ROUNDS=2 AB_TIMEOUT=100 OUT=$OUT/ab bash scripts/device-ab.sh shipped=$B bf16m=$B@--attention-cubin=$D/var/bf16m.cubin \
  bf16m3=$B@--attention-cubin=$V cc3=$D/cc3/pagedattn@--attention-cubin=$V cc2=$D/cc2/pagedattn@--attention-cubin=$V \
  b3s4=$B@--attention-cubin=$V,--split=4 -- "${W[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"
cd "$OUT" && mkdir -p j && cp ab/*.json j/ 2>/dev/null
tar czf logs.tgz --exclude=logs.tgz --exclude=j * && tar czf json.tgz j && rm -rf ab j *.log
grep -vE "^\s*$" ab.txt | grep -v "rc=0" | head -60
echo "total $(( $(date +%s) - t0 ))s"
