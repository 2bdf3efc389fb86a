#!/usr/bin/env bash
# Fourteenth session, call 10 (carry ["dist/micro"]; dist/micro/row_gather
# built here from bench/micro/row_gather.cu): BENCHMARKS "Next candidates"
# 1 asks first whether one-row TMA boxes gather K/V rows as fast as the
# kernels' 16-byte cp.async. Gather only (no math), one CTA per SM, a
# 16 MB cache (in the L2, as the attention's K/V mostly is) and a 1 GB one
# (DRAM), the SM clock sampled beside it.
# Prediction (FlashInfer's maintainers: TMA does not reach full bandwidth
# with small boxes): TMA slower on the 16 MB cache, equal on the 1 GB one.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,clocks_throttle_reasons.active --format=csv,noheader -lms 50 \
  > "$OUT/smi.csv" 2>&1 &
smi=$!
timeout 60 dist/micro/row_gather 100000 | tee "$OUT/row_gather.md"
kill $smi
awk -F', ' '$2 != "345 MHz"' "$OUT/smi.csv" | head -60
