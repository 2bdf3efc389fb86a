#!/usr/bin/env bash
# The tenth session's call 3 (= h200-v15-session/call5.sh, with the ncu
# comparison of chained and shipped appended); carry ["dist", ".peers"].
# The table of the ninth session, on the shipped build (dist/: kernel of
# d312727, host code of 22e50a2): ours on seed + scale + shapes + prefix,
# round 1; FlashInfer 0.7.2.post1 fa2/fa3 on seed + scale + shapes (its
# harness stalls on prefix.jsonl); ours round 2; the dense anchor (PyTorch
# SDPA, cuDNN and flash backends, no paging) on the long rows.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
t0=$(date +%s)
W=(--workloads $D/seed.jsonl --workloads $D/scale.jsonl --workloads $D/shapes.jsonl --workloads $D/prefix.jsonl)
AB_TIMEOUT=150 OUT=$OUT/r1 bash scripts/device-ab.sh ours=$D/pagedattn -- "${W[@]}" > "$OUT/ab-r1.txt" 2>&1
echo "ours r1 $(( $(date +%s) - t0 ))s"
extra=(); if [ -f .peers/flashinfer/pkgs/aot_so.tar.xz ]; then extra=(--no-prebuild); export FLASHINFER_DISABLE_JIT=1; fi
OUT="$OUT/peer" timeout 240 bash .peers/flashinfer/device_run.sh --workloads seed=$D/seed.jsonl scale=$D/scale.jsonl shapes=$D/shapes.jsonl \
  --backends fa2,fa3 --deadline-s 215 --target-ms 40 "${extra[@]}" > "$OUT/peer.log" 2>&1
echo "peer rc=$? $(( $(date +%s) - t0 ))s"; tail -2 "$OUT/peer.log"
AB_TIMEOUT=150 OUT=$OUT/r2 bash scripts/device-ab.sh ours=$D/pagedattn -- "${W[@]}" > "$OUT/ab-r2.txt" 2>&1
echo "ours r2 $(( $(date +%s) - t0 ))s"
OUT=$OUT/dense timeout 90 python3 bench/python/dense_anchor.py > "$OUT/dense.log" 2>&1
echo "dense rc=$? $(( $(date +%s) - t0 ))s"; grep -E "^\|" "$OUT/dense.log" | head -12
# Why chained (call 2) is slower on rows of many units: one ncu profile per
# row and build (seed10 and seed18 from seed.jsonl, tiny_b500 from shapes),
# warp stalls and issue activity side by side.
for d in /opt/nvidia/nsight-compute/*/ /usr/local/cuda/bin; do [ -d "$d" ] && PATH="$PATH:$d"; done
for b in shipped chained; do
  ca=(); [ $b = chained ] && ca=(--attention-cubin $D/var/chained.cubin)
  mkdir -p "$OUT/ncu/$b"
  for w in seed10 seed18 tiny_b500; do
    [ $(( $(date +%s) - t0 )) -gt 470 ] && break
    timeout 40 ncu --clock-control none --kernel-name regex:paged_prefill --launch-count 1 \
      --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats \
      --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis -o "$OUT/ncu/$b/row_$w" \
      $D/pagedattn bench --backend cuda --no-check --reps 1 --warmup 0 --cuda-timing checked "${ca[@]}" \
      --workloads $D/seed.jsonl --workloads $D/shapes.jsonl --filter "$w" > "$OUT/ncu/$b/row_$w.txt" 2>&1 \
      && ncu -i "$OUT/ncu/$b/row_$w.ncu-rep" --page raw --csv > "$OUT/ncu/$b/row_$w.csv" 2>&1
    echo "ncu $b $w rc=$? $(( $(date +%s) - t0 ))s"; rm -f "$OUT/ncu/$b/row_$w.ncu-rep"
  done
  python3 scripts/ncu_rows.py "$OUT/ncu/$b" > "$OUT/ncu_$b.txt" 2>&1
done
cd "$OUT" && mkdir -p j && for r in r1 r2; do for f in $r/ab-*.json; do cp $f j/$r-$(basename $f); done; done
cp peer/results.json j/flashinfer-peer.json 2>/dev/null; cp dense/dense_anchor.json j/ 2>/dev/null
tar czf logs.tgz --exclude=logs.tgz --exclude=j --exclude="ncu_*.txt" * && tar czf json.tgz j && rm -rf r1 r2 peer dense j ncu *.log
grep -E "seed0[0-2]|seed07|seed11|scale_single|batch16|prefix_b4" ab-r2.txt | head -20
echo "total $(( $(date +%s) - t0 ))s"
cat "$OUT"/ncu_*.txt 2>/dev/null | cut -c1-200
