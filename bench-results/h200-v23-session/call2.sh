#!/usr/bin/env bash
# Prepared in the sixteenth session, not run (inputs from prepare-next.sh;
# carry ["dist"]; about 5 minutes): where m192 pays on cached prefixes.
# Call 6 (two rounds, forced m192 against auto): prefix_q64_kv1024_b16
# 0.867, q512_kv4096_b2 0.895, q128_kv16384_b1 0.913, q128_kv4096_b4 0.928,
# q256_kv4096_b2 0.939, q512_kv16384_b1 0.953, but q16_kv4096_b8 1.131,
# prefix_mixed_b32 1.088, q256_kv1024_b8 1.070, q32_kv16384_b2 1.064.
# This call: three rounds on prefix.jsonl and the twelve-shape sweep
# (1-16 sequences, 16-1024 queries over 4096-32768 keys), to find a rule for
# TileConfig::choose (rows per sequence, keys per tile, tiles against CTAs).
# Prediction: m192 wins where a call has fewer 128-row tiles than about two
# waves and each tile reads >= 4096 keys (the L2 bytes bound), loses where
# tiles are few blocks deep or a sequence has < 32 query tokens (a 192-row
# tile then holds padding).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist-m192; B=$D/pagedattn
AB_ROUNDS=3 AB_TIMEOUT=120 OUT=$OUT/ab bash scripts/device-ab.sh auto=$B "m192=$B@--tile=m192" \
  -- --workloads $D/prefix.jsonl --workloads $D/sweep.jsonl > "$OUT/ab.txt" 2>&1
grep -vE "^\s*$" "$OUT/ab.txt" | grep -v "rc=0"
