#!/usr/bin/env bash
# Nineteenth session, call 6: the table call, `bash scripts/device-table.sh`
# (carry ["dist", ".peers"]; dist of the final tree, serving.jsonl included,
# gpu_tests left out for the size limit). Joined:
#   python3 bench-results/h200-v17-session/mktable.py call6 > call6/table.md
bash scripts/device-table.sh
