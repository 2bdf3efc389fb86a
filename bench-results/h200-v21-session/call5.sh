#!/usr/bin/env bash
# Fifteenth session, call 5 (carry ["dist"]; dist/micro/move_energy with
# the gather4 mode; about 1 minute).
# Call 4: stalekv (no K/V bytes moved after a CTA's first 8 block steps,
# real values) runs scale_single_16384 in 2444 us against 2890 (1815 against
# 1650 MHz, both at the cap): the bytes' movement is ~15% of the long rows'
# time under the cap. The gather map: the kernels' 4 threads a row (a warp
# instruction reads 8 rows x 64 bytes) against 16 a row (2 rows x 256 bytes),
# at full speed and at the same rate below the cap.
# Prediction: if the L2 requests' count sets the energy, gather4 draws
# clearly more watts than gather at the same rate (up to 2x the per-byte
# energy above idle); if the bytes do, the same.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
M=dist/micro/move_energy
bash scripts/power-probe.sh idle -- timeout 30 $M idle 3
for d in 0 2000 1000; do
  for m in gather gather4; do
    bash scripts/power-probe.sh $m-d$d -- timeout 30 $M $m 4 $d; grep -h GB/s "$OUT/power-$m-d$d.log"
  done
done
bash scripts/power-probe.sh bulk-d0 -- timeout 30 $M bulk 4 0; grep -h GB/s "$OUT/power-bulk-d0.log"
