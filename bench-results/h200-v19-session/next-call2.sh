#!/usr/bin/env bash
# Prepared in the thirteenth session, not run (carry ["dist", ".peers"];
# about 9 minutes): the table on whatever build ships next, with its checks
# first. `.peers/flashinfer`: copy ../shared/peers/flashinfer there and run
# its make_pkgs.sh once (its README). Join with
#   python3 bench-results/h200-v17-session/mktable.py CALL_DIR  (after tar xzf json.tgz)
TABLE_CHECKS=1 bash scripts/device-table.sh
