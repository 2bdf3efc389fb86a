#!/usr/bin/env bash
# Device call 4 (sixth session): the next step's K/V barriers probed without
# blocking as a step's softmax ends, and the rescale vote moved there too
# (probe, the tree after 7418975) against 7418975's kernel (uni); two rounds
# on seed + scale + shapes + prefix; GPU tests and reliability tests on probe.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
t0=$(date +%s)
W=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/shapes.jsonl --workloads $D/prefix.jsonl)
cfg() { echo "$1=$D/pagedattn@--attention-cubin=$D/var/$1.cubin"; }
AB_TIMEOUT=100 OUT=$OUT/r1 bash scripts/device-ab.sh $(cfg uni) $(cfg probe) -- "${W[@]}" > "$OUT/ab-r1.txt" 2>&1
AB_TIMEOUT=100 OUT=$OUT/r2 bash scripts/device-ab.sh $(cfg probe) $(cfg uni) -- "${W[@]}" > "$OUT/ab-r2.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"
PAGEDATTN_ATTENTION_CUBIN=$D/var/probe.cubin timeout 150 $D/gpu_tests --include-ignored --test-threads=1 --nocapture > "$OUT/gpu_tests.log" 2>&1
echo "gpu_tests (probe) rc=$? $(grep -E '^test result' $OUT/gpu_tests.log) $(( $(date +%s) - t0 ))s"
grep -E "panicked|FAILED" "$OUT/gpu_tests.log" | head -6
PAGEDATTN_ATTENTION_CUBIN=$D/var/probe.cubin timeout 90 $D/gpu_reliability --include-ignored --test-threads=1 > "$OUT/gpu_rel.log" 2>&1
echo "gpu_reliability (probe) rc=$? $(grep -E '^test result' $OUT/gpu_rel.log) $(( $(date +%s) - t0 ))s"
grep -E "panicked|FAILED" "$OUT/gpu_rel.log" | head -6
cd "$OUT" && mkdir -p j && for r in 1 2; do for f in r$r/ab-*.json; do cp $f j/r$r-$(basename $f); done; done
tar czf logs.tgz --exclude=logs.tgz --exclude=j * && tar czf json.tgz j && rm -rf r1 r2 j *.log
cat ab-r1.txt; tail -n +3 ab-r2.txt
echo "total $(( $(date +%s) - t0 ))s"
