#!/usr/bin/env bash
# Fifteenth session, call 3 (carry ["dist"]; dist/micro/move_energy built
# from bench/micro/move_energy.cu; nol2 rebuilt without spills and
# nol2half from scripts/variant-src.py; about 3 minutes).
# Call 2: the long rows run at the 700 W cap at 1620 MHz (cuDNN's dense
# kernel too, 1680), and nol2 (no K/V bytes read) draws 365 W at 1965 MHz
# in 2357 us instead of 2937. So the L2 -> shared-memory bytes draw the
# power. Two questions before a design that cuts them:
# 1. How does the time follow the bytes? nol2half reads about half of the
#    K/V rows (those of even page ids). Prediction: between ours and nol2,
#    ~2600-2700 us, still at the cap.
# 2. What a byte costs by path (move_energy: the 16-byte gather from the L2,
#    one 32 KB bulk copy from the L2, one 32 KB bulk copy from the other CTA
#    of a cluster, idle CTAs). Prediction: the L2 paths 60-100 pJ/B, the
#    cluster's shared-memory path well under half of that, which is what a
#    pair of CTAs sharing each K/V block would trade for half the L2 bytes.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
t0=$(date +%s)
M=$D/micro/move_energy
bash scripts/power-probe.sh idle -- timeout 30 $M idle 3
for m in gather bulk dsmem; do bash scripts/power-probe.sh $m -- timeout 30 $M $m 4; grep -h GB/s "$OUT/power-$m.log"; done
bash scripts/power-probe.sh gather-d2000 -- timeout 30 $M gather 4 2000; grep -h GB/s "$OUT/power-gather-d2000.log"
bash scripts/power-probe.sh dsmem-d2000 -- timeout 30 $M dsmem 4 2000; grep -h GB/s "$OUT/power-dsmem-d2000.log"
bash scripts/power-probe.sh bulk-d2000 -- timeout 30 $M bulk 4 2000; grep -h GB/s "$OUT/power-bulk-d2000.log"
echo "micro $(( $(date +%s) - t0 ))s"
P=(bench --backend cuda --no-check --workloads $D/scale.jsonl --filter scale_single_16384 --reps 1500 --warmup 20)
bash scripts/power-probe.sh ours16k -- timeout 60 $D/pagedattn "${P[@]}"
bash scripts/power-probe.sh nol2half16k -- timeout 60 $D/pagedattn "${P[@]}" --attention-cubin $D/var/nol2half.cubin
bash scripts/power-probe.sh nol2-16k -- timeout 60 $D/pagedattn "${P[@]}" --attention-cubin $D/var/nol2.cubin
P8=(bench --backend cuda --no-check --workloads $D/scale.jsonl --filter scale_single_8192 --filter scale_batch16 --reps 3000 --warmup 20)
bash scripts/power-probe.sh ours8k -- timeout 60 $D/pagedattn "${P8[@]}"
bash scripts/power-probe.sh nol2-8k -- timeout 60 $D/pagedattn "${P8[@]}" --attention-cubin $D/var/nol2.cubin
for f in "$OUT"/power-*16k.log "$OUT"/power-*8k.log; do echo "$(basename $f .log): $(grep -hoE '^\| scale_[a-z0-9_]+ +\| +[0-9]+ +\| +[0-9]+ +\| +[0-9]+ +\| +[0-9.]+' $f | awk -F'|' '{printf "%s %s; ", $2, $6}')"; done
echo "total $(( $(date +%s) - t0 ))s"
