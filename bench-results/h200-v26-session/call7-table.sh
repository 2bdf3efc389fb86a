#!/usr/bin/env bash
# Call 7: the table call, scripts/device-table.sh with shorter peer and
# dense timeouts for the device time left (it ran as a copy of the script
# with these three values written in); carry ["dist", ".peers"].
cd "$(dirname "$0")/../.."
TABLE_PEER_S=175 TABLE_DENSE_S=70 TABLE_R3_BEFORE_S=330 exec bash scripts/device-table.sh
