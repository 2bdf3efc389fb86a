#!/usr/bin/env bash
# Call 4: the table call on 29d16f9 (the spread merge, its split
# candidates, the decode rule's exception): scripts/device-table.sh with
# the twentieth session's shorter peer and dense timeouts; carry ["dist",
# ".peers"].
cd "$(dirname "$0")/../.."
TABLE_PEER_S=175 TABLE_DENSE_S=70 TABLE_R3_BEFORE_S=330 exec bash scripts/device-table.sh
