#!/usr/bin/env bash
# The eleventh session's call 5 (carry ["dist"]; about 2 minutes): the
# statictk diagnostic (statictk-diagnostic.patch: every ticket static, a
# zigzag over the grid, so no unit waits for the ticket counter's atomic).
#   question: is the counter's round trip (claimed as a unit's last block
#   loads, read when the next unit is decoded) on the chain of the rows of
#   many one-block units? If so tiny_b500 / tiny_b300 / seed18 get faster
#   (their units are near-uniform, so the static order balances them); the
#   rows of uneven units may get slower (no dynamic balance). Bits equal
#   (the order of units does not change any unit's arithmetic).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist; B=$D/pagedattn; V=$D/var/statictk.cubin
t0=$(date +%s)
PAGEDATTN_ATTENTION_CUBIN=$V timeout 100 $D/gpu_tests --include-ignored --test-threads=1 --nocapture split deterministic host_plan random_batches > "$OUT/gpu_tests.log" 2>&1
echo "gpu_tests (statictk, 4) rc=$? $(grep -E '^test result' $OUT/gpu_tests.log) $(( $(date +%s) - t0 ))s"
grep -E "panicked|FAILED" "$OUT/gpu_tests.log" | head -4
W=(--workloads $D/seed.jsonl --workloads $D/shapes.jsonl)
AB_ROUNDS=2 AB_TIMEOUT=100 OUT=$OUT/ab bash scripts/device-ab.sh shipped=$B statictk=$B@--attention-cubin=$V -- "${W[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"
cd "$OUT" && mkdir -p j && cp ab/*.json j/ 2>/dev/null
tar czf logs.tgz --exclude=logs.tgz --exclude=j * && tar czf json.tgz j && rm -rf ab j *.log
grep -vE "^\s*$" ab.txt | grep -v "rc=0" | head -40
echo "total $(( $(date +%s) - t0 ))s"
