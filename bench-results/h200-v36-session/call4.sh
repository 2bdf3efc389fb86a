#!/usr/bin/env bash
# Call 4 (thirtieth session): the table call on 96069e4's build (the plan
# memo of c8c9888 and the refitted decode rule; ours host plan, three
# rounds if time allows; FlashInfer fa2/fa3 kernel-only graph time; the
# dense anchor), with the serving set (generated here: the carry's limit),
# the wide and the short-decode draws. Carry ["dist", ".peers"].
python3 scripts/make-shapes-workloads.py --serving dist/serving.jsonl > /dev/null
TABLE_WIDE=1 TABLE_PEER_S=200 TABLE_R3_BEFORE_S=430 bash scripts/device-table.sh
