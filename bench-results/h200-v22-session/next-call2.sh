#!/usr/bin/env bash
# Prepared in the sixteenth session, not run (inputs: `bash
# prepare-next.sh m128p`; carry ["dist"]; about 7 minutes): m128p, a pair
# of CTAs in a cluster sharing each K/V block, first run on a GPU.
# m128p.patch: rank r of a cluster takes 128-row tile 2m + r of a 256-row
# pair tile; each gathers half of every 128-key K/V block (cp.async) and
# forwards it to the other with cp.async.bulk shared::cta -> shared::cluster;
# the consumers release a stage on both CTAs' empty barriers. Static
# schedule, never split, device plan only. 168 registers, no spills.
# Why: the long rows are power-bound; a byte forwarded between CTAs costs
# ~14 pJ against ~31 gathered (bench/micro/move_energy.cu), and m192 showed
# fewer L2 bytes raise the clock at the cap (+4.5%) but paid with its
# per-block chain; m128p keeps m128d's 128-key blocks.
# Prediction: checks clean; 16384 and 32768 2-4% faster sustained (a
# higher clock at the same power); short rows and many-sequence batches
# slower (static schedule, a masked block per pair unit).
# Hangs are the first risk: every step under a timeout, a small test first.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist; B=$D/pagedattn; t0=$(date +%s)
PAGEDATTN_TILE=m128p timeout 60 $D/gpu_tests --include-ignored --test-threads=1 --nocapture both_tile \
  > "$OUT/first.txt" 2>&1; rc=$?
echo "first test rc=$rc $(( $(date +%s) - t0 ))s"; grep -E "test result|panicked" "$OUT/first.txt" | head -5
[ $rc = 0 ] || { tail -20 "$OUT/first.txt"; exit 1; }
export PAGEDATTN_TILE=m128p
TESTS_TIMEOUT=150 REL_TIMEOUT=90 SANITIZERS="memcheck racecheck synccheck" SAN_EXTRA="--tile m128p" SAN_TIMEOUT=45 \
  bash scripts/device-run.sh tests reliability sanitize-plans > "$OUT/checks.txt" 2>&1
unset PAGEDATTN_TILE
echo "checks $(( $(date +%s) - t0 ))s"; sed -n '/^=== summary/,$p' "$OUT/checks.txt"
if sed -n '/^=== summary/,$p' "$OUT/checks.txt" | grep -qE "rc=[1-9]"; then echo "checks failed: no timing"; exit 1; fi
P=(bench --backend cuda --no-check --workloads $D/scale.jsonl --filter scale_single_16384 --reps 1400 --warmup 20)
bash scripts/power-probe.sh auto16k -- timeout 60 $B "${P[@]}"
bash scripts/power-probe.sh m128p-16k -- timeout 60 $B "${P[@]}" --tile m128p
for f in "$OUT"/power-*16k.log; do echo "$(basename $f .log): $(grep -hoE '^\| scale_[a-z0-9_]+ +\| +[0-9]+ +\| +[0-9]+ +\| +[0-9]+ +\| +[0-9.]+' $f | awk -F'|' '{printf "%s %s; ", $2, $6}')"; done
AB_ROUNDS=2 AB_TIMEOUT=120 OUT=$OUT/ab bash scripts/device-ab.sh auto=$B "m128p=$B@--tile=m128p" \
  -- --workloads $D/scale.jsonl --workloads $D/prefix.jsonl > "$OUT/ab.txt" 2>&1
grep -vE "^\s*$" "$OUT/ab.txt" | grep -v "rc=0"
echo "total $(( $(date +%s) - t0 ))s"
