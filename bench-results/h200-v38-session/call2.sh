#!/usr/bin/env bash
# Call 2 (thirty-third session): 34847b8 (m64 for one sequence below 704
# tokens, two below 576 a sequence) against 40e930f's build, two rounds, on
# the seed set, the short-prefill grid (prefill-grid.py, drawn again with
# the same seed) and shapes. Carry ["dist"]: dist/pagedattn (cargo build
# --release -p pagedattn-cli on 34847b8), dist/old/pagedattn (scripts/dist.sh on 40e930f).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
python3 bench-results/h200-v37-session/prefill-grid.py dist/pgrid.jsonl
AB_ROUNDS=2 AB_TIMEOUT=100 OUT=$OUT/ab bash scripts/device-ab.sh old=dist/old/pagedattn new=dist/pagedattn -- \
  --workloads workloads/seed.jsonl --workloads dist/pgrid.jsonl --workloads workloads/shapes.jsonl > "$OUT/ab.txt" 2>&1
grep -E "rc=" "$OUT/ab.txt" | grep -v "rc=0"
grep -E "^\| " "$OUT/ab.txt" | cut -c1-120
echo "total $(( $(date +%s) - t0 ))s"
