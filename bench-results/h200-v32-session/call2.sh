#!/usr/bin/env bash
# Call 2: the table call on 43b7f19's build (v17.9): ours in rounds on the
# main sets, the serving set, the wide draw and the four short-decode
# draws; FlashInfer 0.7.2.post1 (fa2, fa3) on the same but prefix; the
# dense anchor on the long rows. Carry ["dist", ".peers"].
TABLE_WIDE=1 TABLE_PEER_S=200 TABLE_R3_BEFORE_S=430 bash scripts/device-table.sh
