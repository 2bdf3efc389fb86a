#!/usr/bin/env bash
# Device call 8 (sixth session): one sequence below 608 keys takes m64 (this
# tree: schedule::M64_MAX_SINGLE_KV_LEN) against 7418975 (dist/prev), two
# rounds on seed + scale + shapes + prefix + the tile sweep; GPU tests.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
t0=$(date +%s)
timeout 100 $D/gpu_tests --include-ignored --test-threads=1 --nocapture > "$OUT/gpu_tests.log" 2>&1
echo "gpu_tests rc=$? $(grep -E '^test result' $OUT/gpu_tests.log) $(( $(date +%s) - t0 ))s"
grep -E "panicked|FAILED|host plan:" "$OUT/gpu_tests.log" | head -4
W=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/shapes.jsonl --workloads $D/prefix.jsonl --workloads $D/tile-sweep.jsonl)
AB_TIMEOUT=80 OUT=$OUT/r1 bash scripts/device-ab.sh prev=$D/prev/pagedattn new=$D/pagedattn -- "${W[@]}" > "$OUT/ab-r1.txt" 2>&1
AB_TIMEOUT=80 OUT=$OUT/r2 bash scripts/device-ab.sh new=$D/pagedattn prev=$D/prev/pagedattn -- "${W[@]}" --filter seed0 --filter tiles > "$OUT/ab-r2.txt" 2>&1
cd "$OUT" && mkdir -p j && for r in 1 2; do for f in r$r/ab-*.json; do cp $f j/r$r-$(basename $f); done; done
tar czf logs.tgz --exclude=logs.tgz --exclude=j * && tar czf json.tgz j && rm -rf r1 r2 j *.log
cat ab-r1.txt | awk -F'|' 'NR<=2 || $0 ~ /geomean/ || ($5+0 > 1.015 || $5+0 < 0.985)'; tail -n +3 ab-r2.txt | grep -E "seed07|seed08|tiles_b1_q(320|448|576|640)|geomean"
echo "total $(( $(date +%s) - t0 ))s"
