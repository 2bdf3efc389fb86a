#!/usr/bin/env bash
# Device call 11 (fifth session): the polling merge of c5035fc re-landed on
# this kernel (the last chunk of a split tile polls the count and merges from
# its registers; otherwise the chunk completing the count merges) against
# 3817031 (dist/base): GPU tests, then two rounds on the split-heavy calls
# (prefix + sweep) and the seed + scale sets (code placement).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
t0=$(date +%s)
timeout 130 $D/gpu_tests --include-ignored --test-threads=1 --nocapture > "$OUT/gpu_tests.log" 2>&1
echo "gpu_tests rc=$? $(grep -E '^test result' $OUT/gpu_tests.log) $(( $(date +%s) - t0 ))s"
grep -E "panicked|FAILED|host plan:|split-KV:" "$OUT/gpu_tests.log" | head -6
W=(--workloads $D/prefix.jsonl --workloads $D/sweep.jsonl --workloads $D/seed.jsonl --workloads $D/scale.jsonl)
AB_TIMEOUT=100 OUT=$OUT/r1 bash scripts/device-ab.sh base=$D/base/pagedattn poll=$D/pagedattn -- "${W[@]}" > "$OUT/ab-r1.txt" 2>&1
echo "round 1 $(( $(date +%s) - t0 ))s"
AB_TIMEOUT=100 OUT=$OUT/r2 bash scripts/device-ab.sh poll=$D/pagedattn@--no-check base=$D/base/pagedattn@--no-check -- "${W[@]}" > "$OUT/ab-r2.txt" 2>&1
echo "round 2 $(( $(date +%s) - t0 ))s"
cat "$OUT/ab-r1.txt"; tail -3 "$OUT/ab-r2.txt"
cd "$OUT" && mkdir -p j && for r in 1 2; do for f in r$r/ab-*.json; do cp $f j/r$r-$(basename $f); done; done
tar czf logs.tgz --exclude=logs.tgz --exclude=j * && tar czf json.tgz j && rm -rf r1 r2 j *.log
ls; echo "total $(( $(date +%s) - t0 ))s"
