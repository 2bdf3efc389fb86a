#!/usr/bin/env bash
# Prepared in the twelfth session, not run (carry ["dist"]; inputs from
# prepare-next.sh; about 1.5 minutes with the start):
# the unitcost account of the new
# build (qpre on m128d), with the producer's decode split into the wait
# for the counter's ticket (24) and the decode after it (25), and a CTA's
# plan ready from its entry (26).
#   question: did qpre take m128d's later-unit Q wait (3000-3600 cycles in
#   call 3) down, and is the ticket's round trip what the m64 producer's
#   2800-4400 cycles of decode per unit wait on? How much of a CTA's
#   first-unit chain (first unit decoded 4670-10500 cycles after entry) is
#   the plan?
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
run seed seed18 m64
run seed seed12 m64
run shapes tiny_b500 m64
cd "$OUT" && tar czf logs.tgz --exclude=logs.tgz *.txt *.json && rm -f *.txt
echo "total $(( $(date +%s) - t0 ))s"
