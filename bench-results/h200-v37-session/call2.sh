#!/usr/bin/env bash
# Call 2 (prepared in the thirty-first session, which had no device; not
# run yet): branch next-m64-row-units (m64's row split up to 224 units,
# fitted on the thirtieth session's call 2) and branch next-decode-tiles
# (under the host plan a decode-like call with 1.3x the m64 tiles of its
# mean query count takes m128dv, the 11-query side) against main, two rounds, host
# and device plan, over the fresh row-decode draw (--row-decode-holdout,
# drawn after the fit), short-decode-holdout4 and decode-holdout4 (both not
# fitted on), and the fitted draws (row-decode, four short-decode); then the
# branch's GPU tests and memcheck / racecheck over the calls it moves.
# Carry ["dist"], built by prepare.sh (this directory). Builds: dist/ by scripts/dist.sh on main; dist/m64ru/:
#   git worktree add /tmp/b next-m64-row-units && (cd /tmp/b && CARGO_TARGET_DIR=/tmp/btarget \
#     bash scripts/dist.sh) && mkdir -p dist/m64ru && cp /tmp/b/dist/{pagedattn,gpu_tests} dist/m64ru/
# dist/dtiles/pagedattn likewise from next-decode-tiles (host code only).
set -u
for d in /usr/local/cuda/bin /usr/local/cuda/compute-sanitizer; do [ -d "$d" ] && PATH="$PATH:$d"; done
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files ab abdev *.log 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
W=()
python3 scripts/make-sweep-workloads.py --decode-holdout2 dist/decode-holdout2.jsonl > /dev/null
for m in row-decode-holdout short-decode-holdout4 decode-holdout4 row-decode short-decode short-decode-holdout \
  short-decode-holdout2 short-decode-holdout3; do
  python3 scripts/make-sweep-workloads.py --$m dist/$m.jsonl > /dev/null; W+=(--workloads dist/$m.jsonl); done
A=dist/pagedattn; B=dist/m64ru/pagedattn; C=dist/dtiles/pagedattn
AB_ROUNDS=2 AB_TIMEOUT=150 OUT=$OUT/ab bash scripts/device-ab.sh main=$A m64ru=$B dtiles=$C -- "${W[@]}" \
  --workloads dist/decode-holdout2.jsonl > "$OUT/ab.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$OUT/ab.txt" | grep -v "rc=0"
AB_TIMEOUT=150 OUT=$OUT/abdev bash scripts/device-ab.sh main=$A@--plan=device m64ru=$B@--plan=device -- "${W[@]}" > "$OUT/abdev.txt" 2>&1
echo "abdev $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$OUT/abdev.txt" | grep -v "rc=0"
timeout 200 dist/m64ru/gpu_tests --include-ignored --test-threads=1 > "$OUT/gpu_tests.log" 2>&1
echo "gpu tests rc=$? $(grep -E '^test result' "$OUT/gpu_tests.log")"
F=()
for f in rdecho_b6_q2_kv384 rdecho_b16_q2_kv512 rdecho_b2_q2_kv1024 decodeho4_b2_q1_kv1024 sdec_b8_q1_kv384 \
  rdec_b6_q2_kv1024 rdec_b8_q2_kv640 rdec_b12_q1_kv512; do F+=(--filter $f); done
for tool in memcheck racecheck; do for plan in host device; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $B check --backend cuda --cpu-ref-max-pairs 0 \
    --plan $plan "${W[@]}" "${F[@]}" > "$OUT/san_${tool}_$plan.log" 2>&1
  echo "$tool $plan rc=$? $(grep -E 'ERROR SUMMARY' "$OUT/san_${tool}_$plan.log" | tail -1)"; done; done
for f in ab abdev; do grep -E "^\| " "$OUT/$f.txt" | cut -c1-160; done
python3 bench-results/h200-v37-session/analyse.py --ab "$OUT/ab.txt" "$OUT/abdev.txt"
