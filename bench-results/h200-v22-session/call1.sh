#!/usr/bin/env bash
# Prepared in the fifteenth session, not run (inputs from prepare-next.sh;
# carry ["dist"]; about 7 minutes): updownd's checks and a third and fourth
# round, before it ships.
# updownd (updownd-variant.patch): in m128d's persistent kernel only, the
# units of every other wave of the grid's size walk their key blocks up, so
# each wave starts on the keys the last one read; the wave is the unit
# index (kept in WorkUnit::slot) over the grid. Measured in the fifteenth
# session: calls 9 (the same in every kernel: DRAM reads at 32768 1.58 ->
# 0.93 GB) and 10 (m128d only, two rounds: 32768 11464.5 -> 11316.9 us,
# 16384 2903.3 -> 2873.2, m128d's cached-prefix rows 0.3-0.9% slower, every
# other row bitwise equal); call 11: GPU tests 13/13 with its cubin.
# Not yet run on this cubin: reliability, the four sanitizers.
# Prediction: checks clean; 32768 and 16384 1-1.5% faster again, the
# prefix rows within 1%.
bash scripts/device-variant.sh updownd dist/var/updownd.cubin
