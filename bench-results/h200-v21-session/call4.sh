#!/usr/bin/env bash
# Fifteenth session, call 4 (carry ["dist"]; stalekv and halfkv from
# scripts/variant-src.py; about 1.5 minutes).
# Call 3's move_energy put the 16-byte gather from the L2 at ~29 pJ/B (bulk
# copies from the L2 ~16, from the other CTA of a cluster ~14), which
# accounts for about a third of what nol2 saves at 16384 (1.16 J a call for
# ~13 GB). nol2 zero-fills K and V, so its tensor cores multiply zeros: it
# mixes the bytes' movement with the data's effect on the GEMMs' power.
# stalekv keeps real values in the ring (read in a CTA's first 8 block
# steps, reused after), halfkv reads every other block step.
# Prediction: stalekv between nol2 (384 W, 1980 MHz, 2367 us) and ours
# (700 W, 1605 MHz, 2961 us): ~2500-2600 us at the cap if the GEMMs' data
# draws the rest; halfkv halfway between stalekv and ours.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
t0=$(date +%s)
P=(bench --backend cuda --no-check --workloads $D/scale.jsonl --filter scale_single_16384 --reps 1500 --warmup 20)
bash scripts/power-probe.sh ours16k -- timeout 60 $D/pagedattn "${P[@]}"
for v in stalekv halfkv nol2; do
  bash scripts/power-probe.sh $v-16k -- timeout 60 $D/pagedattn "${P[@]}" --attention-cubin $D/var/$v.cubin
done
bash scripts/power-probe.sh ours16k-2 -- timeout 60 $D/pagedattn "${P[@]}"
P8=(bench --backend cuda --no-check --workloads $D/scale.jsonl --filter scale_single_8192 --filter scale_batch16 --reps 3000 --warmup 20)
bash scripts/power-probe.sh ours8k -- timeout 60 $D/pagedattn "${P8[@]}"
bash scripts/power-probe.sh stalekv-8k -- timeout 60 $D/pagedattn "${P8[@]}" --attention-cubin $D/var/stalekv.cubin
for f in "$OUT"/power-*16k*.log "$OUT"/power-*8k.log; do echo "$(basename $f .log): $(grep -hoE '^\| scale_[a-z0-9_]+ +\| +[0-9]+ +\| +[0-9]+ +\| +[0-9]+ +\| +[0-9.]+' $f | awk -F'|' '{printf "%s %s; ", $2, $6}')"; done
echo "total $(( $(date +%s) - t0 ))s"
