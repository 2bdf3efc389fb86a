#!/usr/bin/env bash
# Call 1 (twenty-fifth session): where a short decode-like call's time goes.
# (1) the timeline variant (clock stamps of every CTA's first unit) on seven
# calls, one per process: four direct (seed00, seed02, seed06, sdec_b1_q15_kv384), one
# unsplit but not direct (sdec_b3_q4_kv384), two split (sdecho3_b2_q3_kv1536,
# sdecho3_b1_q11_kv1024); (2) nomerge against the shipped
# build on the four short-decode draws
# (dist/short4.jsonl), one round; (3) below. Carry ["dist"].
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
trap '(cd "$OUT" && tar czf logs.tgz --remove-files abs abt 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
P=dist/pagedattn
for n in seed00:dist/seed.jsonl seed02:dist/seed.jsonl seed06:dist/seed.jsonl sdec_b1_q15_kv384:dist/short4.jsonl sdec_b3_q4_kv384:dist/short4.jsonl \
         sdecho3_b2_q3_kv1536:dist/short4.jsonl sdecho3_b1_q11_kv1024:dist/short4.jsonl; do
  w=${n%%:*}; f=${n#*:}
  timeout 60 $P bench --no-check --attention-cubin dist/var/timeline.cubin --workloads "$f" --filter "$w" > "$OUT/tl-$w.txt" 2>&1
  echo "== $w rc=$?"; grep -E '^TL' "$OUT/tl-$w.txt" | head -12
done
echo "timeline $(( $(date +%s) - t0 ))s"
c=(auto=$P nomerge=$P@--attention-cubin=dist/var/nomerge.cubin,--no-check)
AB_TIMEOUT=120 OUT=$OUT/abs bash scripts/device-ab.sh "${c[@]}" -- --workloads dist/short4.jsonl > "$OUT/abs.txt" 2>&1
echo "ab $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$OUT/abs.txt" | grep -v "rc=0" | head; sed -n '/^| workload/,$p' "$OUT/abs.txt" | grep -v "output bits" | cut -c1-110
# (3) the tiny direct rows: m64's direct entry with one Q slot and 3-deep
# K/V rings (m64d3, two CTAs an SM still) and m64 prefetching a short
# unit's later K/V rows into L2 (kvpf), against the shipped build on the
# seed set, two rounds.
c=(auto=$P m64d3=$P@--attention-cubin=dist/var/m64d3.cubin kvpf=$P@--attention-cubin=dist/var/kvpf.cubin)
AB_ROUNDS=2 AB_TIMEOUT=120 OUT=$OUT/abt bash scripts/device-ab.sh "${c[@]}" -- --workloads dist/seed.jsonl > "$OUT/abt.txt" 2>&1
echo "abt $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$OUT/abt.txt" | grep -v "rc=0" | head; sed -n '/^| workload/,$p' "$OUT/abt.txt" | grep -v "output bits" | cut -c1-110
