#!/usr/bin/env bash
# Sixteenth session, call 3 (carry ["dist", ".peers"]; dist.sh at 8a8d5b2): the table call on the
# shipped build with updownd (its checks ran in call 1 on the same m128d SASS; the
# other kernels are unchanged).
bash scripts/device-table.sh
