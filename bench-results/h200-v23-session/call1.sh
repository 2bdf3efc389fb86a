#!/usr/bin/env bash
# Seventeenth session, call 1 (inputs from prepare.sh; carry ["dist",
# "dist-main"]; about 8 minutes).
# Part 1, main's build (dist-main): the host changes of the sixteenth
# session never ran on a GPU: 17d09cf (a semaphore pair for every merge
# slot), ff52901/5689d3f (host_plan_launch_matches_device_plan replays
# seed17 under a forced configuration). GPU tests default and with m128d
# forced; memcheck over both plans under --one-cta-per-unit (m64's 4224
# slots, where the semaphores had run into the lse region).
# Prediction: 13/13 twice, memcheck clean.
# Part 2, m128p's first GPU run (dist: main + m128p.patch): a small test
# under a timeout (a hang in the cross-CTA handshake is the first risk),
# then tests, reliability, three sanitizers, and 16384 sustained against
# auto. Prediction: checks clean; 16384 2-4% faster at a higher clock.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
# only a few files come back from a call: everything else in one archive
trap '(cd "$OUT" && tar czf /tmp/logs.tgz --exclude="*.csv" . && mv /tmp/logs.tgz logs.tgz && find . -type f ! -name logs.tgz -delete)' EXIT
DIST=dist-main OUT=$OUT/main bash scripts/device-run.sh tests > "$OUT/main-tests.txt" 2>&1
PAGEDATTN_TILE=m128d DIST=dist-main OUT=$OUT/m128d bash scripts/device-run.sh tests > "$OUT/m128d-tests.txt" 2>&1
SANITIZERS=memcheck SAN_EXTRA=--one-cta-per-unit DIST=dist-main OUT=$OUT/san bash scripts/device-run.sh sanitize-plans > "$OUT/san.txt" 2>&1
for f in main-tests m128d-tests san; do echo "[$f]"; sed -n '/^=== summary/,$p' "$OUT/$f.txt" | tail -n +2; done
grep -hE "panicked|FAILED|differs" "$OUT"/main/gpu_tests.log "$OUT"/m128d/gpu_tests.log | head -10
echo "part 1 $(( $(date +%s) - t0 ))s"
D=dist; B=$D/pagedattn
PAGEDATTN_TILE=m128p timeout 60 $D/gpu_tests --include-ignored --test-threads=1 --nocapture both_tile \
  > "$OUT/first.txt" 2>&1; rc=$?
echo "m128p first test rc=$rc $(( $(date +%s) - t0 ))s"; grep -E "test result|panicked" "$OUT/first.txt" | head -5
[ $rc = 0 ] || { tail -20 "$OUT/first.txt"; exit 1; }
export PAGEDATTN_TILE=m128p
TESTS_TIMEOUT=150 REL_TIMEOUT=90 SANITIZERS="memcheck racecheck synccheck" SAN_EXTRA="--tile m128p" SAN_TIMEOUT=45 \
  OUT=$OUT/p bash scripts/device-run.sh tests reliability sanitize-plans > "$OUT/checks.txt" 2>&1
unset PAGEDATTN_TILE
echo "m128p checks $(( $(date +%s) - t0 ))s"; sed -n '/^=== summary/,$p' "$OUT/checks.txt"
grep -hE "panicked|differs" "$OUT"/p/gpu_tests.log | head -5
if sed -n '/^=== summary/,$p' "$OUT/checks.txt" | grep -qE "rc=[1-9]"; then echo "checks failed: no timing"; exit 1; fi
P=(bench --backend cuda --no-check --workloads $D/scale.jsonl --filter scale_single_16384 --reps 1400 --warmup 20)
bash scripts/power-probe.sh auto16k -- timeout 60 $B "${P[@]}"
bash scripts/power-probe.sh m128p-16k -- timeout 60 $B "${P[@]}" --tile m128p
for f in "$OUT"/power-*16k.log; do echo "$(basename $f .log): $(grep -hoE '^\| scale_[a-z0-9_]+ +\| +[0-9]+ +\| +[0-9]+ +\| +[0-9]+ +\| +[0-9.]+' $f | awk -F'|' '{printf "%s %s; ", $2, $6}')"; done
echo "total $(( $(date +%s) - t0 ))s"
