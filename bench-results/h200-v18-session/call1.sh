#!/usr/bin/env bash
# Prepared in the eleventh session, not run (inputs from prepare-next.sh;
# carry ["dist"]; about 4 minutes). Where a work unit's cycles go, on the
# rows whose targets the per-unit cost holds (BENCHMARKS "Next candidates"
# 9): scripts/unitcost.py launches the unitcost cubin on one workload (the
# device-built plan, no split), checks its output against float32, and
# prints the consumers' and the producer's cycles per unit by stage; the
# shipped cubin through the same launch gives the stamps' cost by
# difference.
#   question: of a unit's cycles beyond its blocks' (about 2-3 us), how many
#   are the wait for its Q slot, the first K block, the first block's QK and
#   softmax (not overlapped with a P V), the last P V, and the epilogue? The
#   largest part is the next design's target (a Q slot freed earlier, the
#   epilogue's copies off the consumers, or the first block overlapped).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist; U=$D/var/unitcost.cubin
t0=$(date +%s)
run() {  # workloads file, row, kernel
  local f=$1 n=$2 k=$3
  timeout 60 python3 scripts/unitcost.py $U $D/$f.jsonl $n --kernel $k --reps 20 --json "$OUT/uc_$n.json" > "$OUT/uc_$n.txt" 2>&1
  echo "== $n ($k) rc=$? $(( $(date +%s) - t0 ))s"; cat "$OUT/uc_$n.txt"
  timeout 60 python3 scripts/unitcost.py $D/attention.cubin $D/$f.jsonl $n --kernel $k --reps 20 > "$OUT/shipped_$n.txt" 2>&1
  echo "   shipped cubin, same launch: $(tail -1 "$OUT/shipped_$n.txt")"
}
run scale scale_batch16x2048 m128d
run seed seed11 m128d
run seed seed15 m128d
run shapes prefix_b4_q128_kv4096 m128d
run seed seed10 m128
run seed seed13 m128
run scale scale_batch64x512 m128
run seed seed18 m64
run seed seed12 m64
run shapes tiny_b500 m64
run scale scale_single_8192 m128d
cd "$OUT" && tar czf logs.tgz --exclude=logs.tgz *.txt *.json && rm -f shipped_*.txt
echo "total $(( $(date +%s) - t0 ))s"
