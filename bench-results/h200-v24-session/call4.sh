#!/usr/bin/env bash
# Eighteenth session, call 4 (carry ["dist", "dist-main"]; prepare4.sh).
# prefers_m192 as a model of both configurations' plans (each unit's rows x
# (keys + 128), a split tile's chunks 128 more each, longest first onto 132
# CTAs; m192 below 93% of the 128-row tiles' busiest CTA), fitted on the 92
# calls of calls 1-3 and the seventeenth session: 29 picks there, all
# faster (0.69-0.96).
# Part 1: the GPU tests (the host's choice changed; the kernels are v17.0's).
# Part 2: a fourth held-out set (random shapes, `--holdout4`; 12 the rule
# takes, 12 it leaves) and the cached-prefix rows of prefix.jsonl and
# shapes.jsonl, three rounds: 58d2020's CLI, this build, m192 forced.
#   Prediction: the 12 taken 0.70-0.96 of 58d2020, none above 1.0; the rest
#   bitwise equal; prefix_q128_kv16384_b1 back on m128d (67 us, v16.1's),
#   prefix_q512_kv16384_b1 on m192 (180).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files h4 *.log 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
B=dist/pagedattn
timeout 300 dist/gpu_tests --include-ignored --test-threads=1 > "$OUT/gpu_tests.log" 2>&1
echo "gpu_tests rc=$? $(grep -E '^test result' "$OUT/gpu_tests.log")"; grep -E "FAILED|panicked" "$OUT/gpu_tests.log" | head
echo "tests $(( $(date +%s) - t0 ))s"
AB_ROUNDS=3 AB_TIMEOUT=200 OUT=$OUT/h4 bash scripts/device-ab.sh main=dist-main/pagedattn new=$B "m192=$B@--tile=m192" \
  -- --workloads dist/holdout4.jsonl --workloads dist/prefix.jsonl --workloads dist/shapes.jsonl \
  --filter holdout4 --filter prefix > "$OUT/holdout4.txt" 2>&1
grep -vE "^\s*$" "$OUT/holdout4.txt" | grep -v "rc=0" | grep -v "^|"
python3 - "$OUT" <<'PY'
import json, glob, sys, statistics as st
out = sys.argv[1]
launch = {}
for f in glob.glob(f"{out}/h4/ab-new-r1.json"):
    for r in json.load(open(f))["rows"]:
        launch[r["name"]] = r["launch"]
print("m192 taken by the new build:", " ".join(sorted(n for n, l in launch.items() if l.startswith("m192"))))
PY
echo "--- holdout4 and prefixes"; sed -n '/^| workload/,$p' "$OUT/holdout4.txt" | head -50
