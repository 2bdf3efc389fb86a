#!/usr/bin/env bash
# Device call 1 (fourth session): GPU tests of the host-plan build, then a
# same-call A/B: c6fa151's binary, the new binary planning on the device,
# and the new binary with the host plan, on seed + scale + shapes.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader
timeout 300 $D/gpu_tests --include-ignored --test-threads=1 --nocapture > "$OUT/gpu_tests.log" 2>&1
echo "gpu_tests rc=$? $(grep -E '^test result' $OUT/gpu_tests.log)"
grep -E "^test .*(FAILED|ok)$|panicked|host plan" "$OUT/gpu_tests.log" | head -20
W=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/shapes.jsonl)
AB_TIMEOUT=240 bash scripts/device-ab.sh base=$D/base/pagedattn dev=$D/pagedattn@--plan=device host=$D/pagedattn -- "${W[@]}" > "$OUT/ab.txt" 2>&1
cat "$OUT/ab.txt" | tail -50
cd "$OUT" && tar czf logs.tgz --exclude=logs.tgz *.log *.txt && rm -f *.log ab-*.txt
ls
