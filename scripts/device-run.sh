#!/usr/bin/env bash
# Runs on a Hopper GPU machine from the repo root, over binaries built
# elsewhere (scripts/dist.sh puts them in dist/). Steps are picked by name:
#   bash scripts/device-run.sh tests reliability example bench bench-m64 bench-m128 checked \
#       sanitize sanitize-generated sanitize-plans ncu ncu-rows peer pack
# The GPU tests are #[ignore]d in the test binaries (so that `cargo test`
# without a GPU reports them as ignored): these steps run them with --ignored.
# Kernel options go to the CLI as flags (--tile, --split, --attention-cubin,
# --one-cta-per-unit); the test binaries read PAGEDATTN_TILE, PAGEDATTN_SPLIT,
# PAGEDATTN_ATTENTION_CUBIN and PAGEDATTN_PERSISTENT from the environment.
# Logs and JSON land in $OUT (default /tmp/out); a short summary prints last.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=${DIST:-dist}
for d in /usr/local/cuda/bin /opt/nvidia/nsight-compute/*/ /usr/local/cuda/compute-sanitizer; do
  [ -d "$d" ] && PATH="$PATH:$d"
done
export PATH
summary=()
step() { echo; echo "=== $* ($(date +%T))"; }
SANITIZER_TOOLS=${SANITIZERS:-memcheck racecheck synccheck initcheck}
# cubin_args CUBIN: the CLI flag that loads a variant cubin ("" for the embedded one).
cubin_args() { [ -n "$1" ] && printf '%s\n' --attention-cubin "$1"; true; }
# sanitize_one TOOL LABEL LOGNAME CUBIN CHECK-ARGS...: one compute-sanitizer run
# of `pagedattn check` (CUBIN: a variant cubin, or "" for the embedded one);
# the log stays in $OUT, the first reports and the summary line print.
sanitize_one() {
  local tool=$1 label=$2 log="$OUT/$3.log" cubin=$4; shift 4
  step "compute-sanitizer $tool ($label)"
  mapfile -t ca < <(cubin_args "$cubin")
  local xa=(); read -ra xa <<< "${SAN_EXTRA:-}"  # e.g. SAN_EXTRA="--tile m128dv"
  timeout ${SAN_TIMEOUT:-300} compute-sanitizer --tool "$tool" --error-exitcode 9 \
    "$D/pagedattn" check --backend cuda --cpu-ref-max-pairs 0 "${ca[@]}" "${xa[@]}" "$@" > "$log" 2>&1
  local rc=$?; tail -2 "$log"
  grep -m 12 -E "Race reported|Error:|Hazard|in .*\.cu:" "$log" | cut -c1-220
  summary+=("sanitizer $tool ($label) rc=$rc: $(grep -E 'SUMMARY' "$log" | tail -1)")
}
for s in "$@"; do
  case "$s" in
    tests)
      step "GPU tests"
      timeout ${TESTS_TIMEOUT:-500} "$D/gpu_tests" --include-ignored --test-threads=1 --nocapture > "$OUT/gpu_tests.log" 2>&1
      rc=$?; grep -E "^(test |seed |scale |fast|reference|determinism|bad|GPU test seed)|panicked|differs" "$OUT/gpu_tests.log" | head -80
      summary+=("gpu tests rc=$rc: $(grep -E '^test result' "$OUT/gpu_tests.log")") ;;
    reliability)
      step "GPU reliability tests"
      timeout ${REL_TIMEOUT:-400} "$D/gpu_reliability" --include-ignored --test-threads=1 --nocapture > "$OUT/gpu_reliability.log" 2>&1
      rc=$?; grep -E "^test |panicked|: ok|SKIPPED|seed" "$OUT/gpu_reliability.log" | cut -c1-300 | head -60
      summary+=("gpu reliability rc=$rc: $(grep -E '^test result' "$OUT/gpu_reliability.log")") ;;
    example)
      step "GPU example"
      timeout 120 "$D/example_gpu" > "$OUT/example_gpu.log" 2>&1
      rc=$?; cat "$OUT/example_gpu.log"
      summary+=("gpu example rc=$rc: $(tail -1 "$OUT/example_gpu.log")") ;;
    bench-m64|bench-m128)
      cfg=${s#bench-}
      step "bench (cuda, tile config forced to $cfg)"
      timeout 400 "$D/pagedattn" bench --backend cuda --tile "$cfg" --json "$OUT/bench-$cfg.json" > "$OUT/bench-$cfg.txt" 2> "$OUT/bench-$cfg.err"
      rc=$?; grep -E "^\| (seed|scale)" "$OUT/bench-$cfg.txt" | awk -F'|' '{print $2, $6, $10}'; grep geomean "$OUT/bench-$cfg.txt"
      summary+=("bench $cfg rc=$rc") ;;
    bench)
      step "bench (cuda)"
      timeout ${BENCH_TIMEOUT:-400} "$D/pagedattn" bench --backend cuda --json "$OUT/bench.json" > "$OUT/bench.txt" 2> "$OUT/bench.err"
      rc=$?; cat "$OUT/bench.txt"; tail -3 "$OUT/bench.err"
      summary+=("bench rc=$rc") ;;
    checked)  # the checked mode's cost against the graph-timed fast path, seed set
      step "bench: checked launches (host clock) vs unchecked (graph)"
      timeout 200 "$D/pagedattn" bench --backend cuda --no-check --workloads "$D/seed.jsonl" --cuda-timing checked \
        --json "$OUT/bench-checked.json" > "$OUT/bench-checked.txt" 2>&1
      rc=$?
      timeout 200 "$D/pagedattn" bench --backend cuda --no-check --workloads "$D/seed.jsonl" --cuda-timing eager \
        --json "$OUT/bench-eager.json" > "$OUT/bench-eager.txt" 2>&1
      python3 - "$OUT" <<'PY'
import json, sys
o = sys.argv[1]
c = {r["name"]: r["time_us"] for r in json.load(open(o + "/bench-checked.json"))["rows"]}
e = {r["name"]: r["time_us"] for r in json.load(open(o + "/bench-eager.json"))["rows"]}
print("workload            eager us  checked us  extra us")
for n in c:
    print("%-18s %9.1f %11.1f %9.1f" % (n, e[n], c[n], c[n] - e[n]))
PY
      summary+=("bench checked rc=$rc") ;;
    sanitize)  # the sanitizers over the seed set
      for tool in $SANITIZER_TOOLS; do
        sanitize_one "$tool" "seed set" sanitize_$tool "" --workloads "$D/seed.jsonl"
      done ;;
    sanitize-generated)  # the sanitizers over the edge cases and 40 generated batches
      for tool in $SANITIZER_TOOLS; do
        sanitize_one "$tool" "generated batches" sanitize_gen_$tool "" --generated 40
      done ;;
    sanitize-plans)  # the sanitizers over split.jsonl + 6 generated batches through the device and the host plan ($SAN_CUBIN: a variant)
      for plan in device host; do
        for tool in $SANITIZER_TOOLS; do
          sanitize_one "$tool" "$plan plan${SAN_CUBIN:+, $(basename "$SAN_CUBIN" .cubin)}" san_${plan}_$tool "${SAN_CUBIN:-}" \
            --plan $plan --workloads "$D/split.jsonl" --generated 6
        done
      done ;;
    sanitize-variants)  # the sanitizers over the generated batches, for every dist/var/*.cubin
      for c in "$D"/var/*.cubin; do
        n=$(basename "$c" .cubin)
        for tool in $SANITIZER_TOOLS; do
          sanitize_one "$tool" "variant $n, generated batches" sanvar_${n}_$tool "$c" --generated 40
        done
      done ;;
    variants)  # kernel experiments: every dist/var/*.cubin on a few workloads (checked), one table
      step "variants"
      F=${VARIANT_FILTERS:-seed02 seed09 seed12 seed18 seed19 scale_single_2048 scale_single_8192 scale_batch64x512}
      fl=(); for f in $F; do fl+=(--filter "$f"); done
      for c in "$D"/var/*.cubin; do
        n=$(basename "$c" .cubin)
        np=(); case "$n" in *_np) np=(--one-cta-per-unit) ;; esac  # NAME_np: one CTA per tile
        timeout ${VARIANT_TIMEOUT:-60} "$D/pagedattn" bench --backend cuda --attention-cubin "$c" "${np[@]}" "${fl[@]}" \
          --json "$OUT/var-$n.json" > "$OUT/var-$n.txt" 2>&1 || echo "variant $n failed: $(tail -2 "$OUT/var-$n.txt")"
      done
      python3 - "$OUT" $F <<'PY'
import json, sys, glob, os
out = sys.argv[1]
runs = {os.path.basename(f)[4:-5]: {r["name"]: r for r in json.load(open(f))["rows"]} for f in sorted(glob.glob(out + "/var-*.json"))}
names = [n for n in next(iter(runs.values()))] if runs else []
print("variant".ljust(14) + "".join(n[:12].rjust(13) for n in names))
for v, rows in runs.items():
    cells = []
    for n in names:
        r = rows.get(n)
        cells.append(("%.1f%s" % (r["time_us"], "" if r["status"] == "ok" else "!" + r["status"][:3])) if r else "-")
    print(v.ljust(14) + "".join(c.rjust(13) for c in cells))
PY
      summary+=("variants done") ;;
    ncu-ab)  # full ncu sets of two cubins on one workload (NCU_A, NCU_B, NCU_FILTER; extra CLI flags NCU_A_ARGS, NCU_B_ARGS, e.g. "--tile m64")
      for side in A B; do
        c=$([ $side = A ] && echo "$NCU_A" || echo "$NCU_B"); ev=$([ $side = A ] && echo "${NCU_A_ARGS:-}" || echo "${NCU_B_ARGS:-}")
        step "ncu $side: $c ($ev)"
        mapfile -t ca < <(cubin_args "$c")
        timeout 200 ncu --clock-control none --kernel-name regex:paged_prefill --launch-count 1 --set full --import-source yes \
          -o "$OUT/ab_$side" "$D/pagedattn" bench --backend cuda --no-check --reps 1 --warmup 0 --cuda-timing checked \
          "${ca[@]}" $ev --filter "${NCU_FILTER:-scale_single_2048}" > "$OUT/ab_$side.txt" 2>&1
        ncu -i "$OUT/ab_$side.ncu-rep" --page source --csv --print-source sass > "$OUT/ab_${side}_sass.csv" 2>&1
        ncu -i "$OUT/ab_$side.ncu-rep" --page details > "$OUT/ab_${side}_details.txt" 2>&1
        grep -E "Duration|Tensor|Issue Slots|Warp Cycles Per Issued|No Eligible|Executed Ipc|Grid Size|Waves" "$OUT/ab_${side}_details.txt" | head -12
      done
      summary+=("ncu-ab done") ;;
    ncu-source)  # per-SASS-instruction stall samples of one long causal call (m128, 8192 tokens)
      step "ncu source-level stall sampling (scale_single_8192)"
      mapfile -t ca < <(cubin_args "${NCU_CUBIN:-}")
      timeout 300 ncu --clock-control none --kernel-name regex:paged_prefill --launch-count 1 --set full --import-source yes \
        -o "$OUT/src8192" "$D/pagedattn" bench --backend cuda --no-check --reps 1 --warmup 0 --cuda-timing checked \
        "${ca[@]}" --workloads "$D/scale.jsonl" --filter scale_single_8192 > "$OUT/ncu_src.txt" 2>&1
      rc=$?
      ncu -i "$OUT/src8192.ncu-rep" --page source --csv --print-source sass > "$OUT/src8192_sass.csv" 2>&1
      ncu -i "$OUT/src8192.ncu-rep" --page details > "$OUT/src8192_details.txt" 2>&1
      head -c 600 "$OUT/src8192_sass.csv"; echo; grep -E "Duration|Tensor|Issue Slots|Warp Cycles Per Issued|No Eligible" "$OUT/src8192_details.txt" | head
      summary+=("ncu-source rc=$rc") ;;
    ncu-rows)  # one profile per workload (NCU_ROWS): speed of light, occupancy, warp stalls; raw CSV per row
      step "ncu per workload"
      for w in ${NCU_ROWS:-seed00 seed02 seed07 seed09 seed11 seed12 seed18 seed19 scale_single_1024 scale_single_8192 scale_single_32768 scale_batch16x2048 scale_batch64x512}; do
        timeout 120 ncu --clock-control none --kernel-name regex:paged_prefill --launch-count 1 \
          --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats \
          --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis -o "$OUT/row_$w" \
          "$D/pagedattn" bench --backend cuda --no-check --reps 1 --warmup 0 --cuda-timing checked --filter "$w" > "$OUT/row_$w.txt" 2>&1 \
          && ncu -i "$OUT/row_$w.ncu-rep" --page raw --csv > "$OUT/row_$w.csv" 2>&1 \
          && ncu -i "$OUT/row_$w.ncu-rep" --page details > "$OUT/row_${w}_details.txt" 2>&1
        echo "$w rc=$? $(grep -m1 -E 'Duration' "$OUT/row_${w}_details.txt" 2>/dev/null)"
        rm -f "$OUT/row_$w.ncu-rep"
      done
      summary+=("ncu-rows done") ;;
    ncu)
      step "ncu"
      timeout 300 ncu --clock-control none --kernel-name regex:paged_prefill --launch-count 12 \
        --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section LaunchStats --section WarpStateStats --section SchedulerStats \
        "$D/pagedattn" bench --backend cuda --no-check --reps 1 --warmup 0 --filter seed02 --filter seed12 --filter seed18 --filter seed19 --filter scale_single_32768 \
        --filter scale_single_8192 > "$OUT/ncu.txt" 2>&1
      rc=$?; grep -E "paged_prefill|Duration|Throughput|Registers|Achieved Occupancy|Block Limit|Dynamic Shared" "$OUT/ncu.txt" | head -60
      summary+=("ncu rc=$rc") ;;
    peer)
      step "FlashInfer peer"
      extra=()
      if [ -f .peers/flashinfer/pkgs/aot_so.tar.xz ]; then extra=(--no-prebuild); export FLASHINFER_DISABLE_JIT=1; fi
      OUT="$OUT/peer" timeout ${PEER_TIMEOUT:-420} bash .peers/flashinfer/device_run.sh --workloads seed=.peers/seed.jsonl scale=.peers/scale.jsonl \
        --backends fa2,fa3 --deadline-s ${PEER_DEADLINE:-300} --target-ms ${PEER_TARGET_MS:-60} "${extra[@]}" > "$OUT/peer.log" 2>&1
      rc=$?; tail -5 "$OUT/peer.log"
      summary+=("peer rc=$rc") ;;
    pack)  # few files come back from a GPU machine: one archive of the logs, plus the JSON
      (cd "$OUT" && tar czf logs.tgz --exclude=logs.tgz --exclude=aot_so.tar.xz -- * \
        && find . -type f ! -name logs.tgz ! -name 'bench*.json' ! -name results.json ! -name '*_sass.csv' ! -name aot_so.tar.xz -delete)
      ls -la "$OUT" ;;
    *) echo "unknown step $s" ;;
  esac
done
step "summary"
printf '%s\n' "${summary[@]}"
