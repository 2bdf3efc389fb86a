#!/usr/bin/env bash
# On the GPU machine: scripts/power-probe.sh over several commands, one
# line each (median SM clock, power, the limit, how many samples carried the
# software power cap). Shows whether a long row runs at full clock or is
# held back by the power limit (the time of a long row scales with the clock).
#   bash scripts/device-clocks.sh "LABEL=COMMAND" ...
# Samples land in $OUT/power-LABEL.csv (default OUT=/tmp/out).
set -uo pipefail
cd "$(dirname "$0")/.."
for spec in "$@"; do
  label=${spec%%=*}; cmd=${spec#*=}
  bash scripts/power-probe.sh "$label" -- bash -c "$cmd"
done
