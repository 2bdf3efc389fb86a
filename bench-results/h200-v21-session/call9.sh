#!/usr/bin/env bash
# Fifteenth session, call 9 (carry ["dist"]; dist/var/updown.cubin from the
# working tree: units walk their key blocks down or up by wave; about 8
# minutes).
# Call 8 (ncu): at 32768 ours reads 1.58 GB from DRAM (cuDNN 0.60, of its
# 0.59 GB of expanded Q, K, V), because every wave of units walks its keys
# from the top down, so it starts on the blocks the L2 holds longest while
# the four kv heads' K/V (64 MB) outgrow it. updown: odd waves (tickets
# u / grid odd) walk up, so each wave starts where the last one ended.
# Prediction: 32768 1-3% faster (DRAM reads near 0.3 GB), 16384 within 1%,
# the other rows within noise (the order of a unit's blocks changes the
# softmax's summation order: bits differ on units of odd waves, so rows
# with more than one wave of units differ bitwise, all checked against the
# reference).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist; B=$D/pagedattn; V=$D/var/updown.cubin
t0=$(date +%s)
for d in /usr/local/cuda/bin /opt/nvidia/nsight-compute/*/; do [ -d "$d" ] && PATH="$PATH:$d"; done
P=(bench --backend cuda --no-check --workloads $D/scale.jsonl --filter scale_single_32768 --reps 350 --warmup 5)
bash scripts/power-probe.sh ours32k -- timeout 60 $B "${P[@]}"
bash scripts/power-probe.sh updown32k -- timeout 60 $B "${P[@]}" --attention-cubin $V
bash scripts/power-probe.sh ours32k-2 -- timeout 60 $B "${P[@]}"
bash scripts/power-probe.sh updown32k-2 -- timeout 60 $B "${P[@]}" --attention-cubin $V
for f in "$OUT"/power-*32k*.log; do echo "$(basename $f .log): $(grep -hoE '^\| scale_[a-z0-9_]+ +\| +[0-9]+ +\| +[0-9]+ +\| +[0-9]+ +\| +[0-9.]+' $f | awk -F'|' '{printf "%s %s; ", $2, $6}')"; done
timeout 60 ncu --clock-control none --kernel-name regex:paged_prefill --launch-skip 3 --launch-count 1 \
  --metrics dram__bytes_read.sum,lts__t_sector_hit_rate.pct,gpu__time_duration.sum \
  $B bench --backend cuda --no-check --reps 2 --warmup 2 --cuda-timing eager --workloads $D/scale.jsonl \
  --filter scale_single_32768 --attention-cubin $V > "$OUT/ncu_updown_32768.txt" 2>&1
grep -E "dram__|lts__|gpu__time" "$OUT/ncu_updown_32768.txt"
echo "power $(( $(date +%s) - t0 ))s"
W=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/shapes.jsonl --workloads $D/prefix.jsonl)
AB_ROUNDS=2 AB_TIMEOUT=150 OUT=$OUT/ab bash scripts/device-ab.sh shipped=$B "updown=$B@--attention-cubin=$V" \
  -- "${W[@]}" > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"
PAGEDATTN_ATTENTION_CUBIN=$V TESTS_TIMEOUT=150 REL_TIMEOUT=60 SANITIZERS="memcheck racecheck synccheck initcheck" \
  SAN_CUBIN=$V SAN_TIMEOUT=30 bash scripts/device-run.sh tests reliability sanitize-plans > "$OUT/checks.txt" 2>&1
echo "checks $(( $(date +%s) - t0 ))s"; sed -n '/^=== summary/,$p' "$OUT/checks.txt"
(cd "$OUT" && mkdir -p j && cp ab/*.json j/ 2>/dev/null && tar czf json.tgz j && rm -rf j)
grep -vE "^\s*$" "$OUT/ab.txt" | grep -v "rc=0"
