#!/usr/bin/env bash
# Sixteenth session, call 4 (carry ["dist"]; dist.sh at 8a8d5b2 and
# dist/var/updowndv.cubin from updowndv-variant.patch): m128dv's persistent
# kernel alternates its waves too (kAlternateWaves covers kStagesV != kStages).
# Why: scale_batch16x2048 (m128dv) holds 64 MB of K/V, more than the L2, and
# the fifteenth session's updown (every kernel) gave it 0.980.
# Prediction: batch16x2048 and batch64x512 1.5-2% faster; the one-wave
# m128dv rows bitwise equal; other m128dv rows within 1%; every other
# kernel's SASS is unchanged, so their rows bitwise equal. Checks clean.
bash scripts/device-variant.sh updowndv dist/var/updowndv.cubin
