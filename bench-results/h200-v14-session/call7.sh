#!/usr/bin/env bash
# Device call 7 (eighth session), diagnostic: how much the K/V ring's lead
# costs. m128 with one Q slot and 3 K/V stages (s3q1-variant.patch: the
# shared memory of the second Q slot and the plan (32 sequences) buys the
# third stage) and with one Q slot alone (q1-variant.patch: the cost of
# losing the next unit's Q prefetch), against the shipped build, all three
# with the kernel's own plan (--plan device: the variants' plan layout is
# not the host's), two rounds.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
t0=$(date +%s)
W=(--plan device --workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/prefix.jsonl --workloads $D/shapes.jsonl
   --filter prefix --filter seed07 --filter seed11 --filter seed19 --filter scale_single_4096 --filter scale_single_8192 --filter batch16x2048)
cfg() { echo "$1=$D/pagedattn@--attention-cubin=$D/var/$1.cubin"; }
AB_ROUNDS=2 AB_TIMEOUT=60 OUT=$OUT/ab bash scripts/device-ab.sh shipped=$D/pagedattn $(cfg q1) $(cfg s3q1) -- "${W[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"
cd "$OUT" && mkdir -p j && cp ab/*.json j/ 2>/dev/null
tar czf logs.tgz --exclude=logs.tgz --exclude=j * && tar czf json.tgz j && rm -rf ab j *.log
grep -vE "^\s*$" ab.txt | head -40
echo "total $(( $(date +%s) - t0 ))s"
