#!/usr/bin/env bash
# The GPU's power and SM clock while one command runs: nvidia-smi samples
# every 50 ms, and one line of medians over the samples taken under load
# (SM clock above 1 GHz and utilisation above 50%), with the share of
# them that carried the software power cap as a throttle reason.
#   bash scripts/power-probe.sh NAME -- COMMAND [ARGS...]
# Give the command a few seconds of work: power.draw is averaged over about
# a second, so the first second of samples only ramps up (they are left out).
# Samples land in $OUT/power-NAME.csv.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
name=$1; shift; [ "${1:-}" = "--" ] && shift
csv=$OUT/power-$name.csv
q=timestamp,utilization.gpu,clocks.sm,power.draw,power.draw.instant,enforced.power.limit,temperature.gpu,clocks_event_reasons.active
# Older drivers lack the instant reading and the new name of the reasons.
nvidia-smi --query-gpu=$q --format=csv,noheader > /dev/null 2>&1 ||
  q=timestamp,utilization.gpu,clocks.sm,power.draw,power.draw,enforced.power.limit,temperature.gpu,clocks_throttle_reasons.active
nvidia-smi --query-gpu=$q --format=csv,noheader,nounits -lms 50 > "$csv" 2>&1 &
smi=$!
"$@" > "$OUT/power-$name.log" 2>&1
rc=$?
kill $smi 2>/dev/null; wait $smi 2>/dev/null
python3 - "$csv" "$name" "$rc" <<'PY'
import statistics, sys
path, name, rc = sys.argv[1:4]
rows = []
for line in open(path):
    f = [x.strip() for x in line.split(",")]
    if len(f) < 8:
        continue
    try:
        util, clk = float(f[1]), float(f[2])
    except ValueError:
        continue
    if clk > 1000 and util > 50:
        rows.append(f)
rows = rows[20:]  # the first second: power.draw still ramps
def med(i):
    v = [float(r[i]) for r in rows if r[i].replace(".", "", 1).isdigit()]
    return f"{statistics.median(v):.0f}" if v else "-"
capped = sum(int(r[7], 16) & 0x4 != 0 for r in rows if r[7].startswith("0x"))
print(f"{name}: rc={rc} samples={len(rows)} sm_clock={med(2)} MHz power_avg={med(3)} W "
      f"power_instant={med(4)} W limit={med(5)} W temp={med(6)} C power_capped={capped}/{len(rows)}")
PY
