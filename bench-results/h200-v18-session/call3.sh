#!/usr/bin/env bash
# Twelfth session, call 3 (carry ["dist"]): the unitcost account with the
# first unit and the epilogue split out (counters 16-23: a CTA's first unit
# from its entry, and the epilogue's first barrier, staging and copies),
# after call 1 put the consumers' Q wait at 11-30% of a unit on the
# one-sequence and m128 rows and the epilogue at 5-26%.
#   question: is the Q wait the CTA's first unit (the entry chain: plan,
#   decode, page ids, Q) or every unit; and which part of the epilogue
#   costs its 1500-2900 cycles?
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist; U=$D/var/unitcost.cubin
t0=$(date +%s)
run() {  # workloads file, row, kernel
  local f=$1 n=$2 k=$3
  timeout 60 python3 scripts/unitcost.py $U $D/$f.jsonl $n --kernel $k --reps 20 --json "$OUT/uc_$n.json" > "$OUT/uc_$n.txt" 2>&1
  echo "== $n ($k) rc=$? $(( $(date +%s) - t0 ))s"; cat "$OUT/uc_$n.txt"
}
run seed seed11 m128d
run seed seed15 m128d
run scale scale_batch16x2048 m128d
run seed seed10 m128
run seed seed13 m128
run scale scale_batch64x512 m128
run seed seed18 m64
run seed seed12 m64
run shapes tiny_b500 m64
cd "$OUT" && tar czf logs.tgz --exclude=logs.tgz *.txt *.json && rm -f *.txt
echo "total $(( $(date +%s) - t0 ))s"
