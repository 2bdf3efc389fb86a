#!/usr/bin/env bash
# Fifteenth session, call 10 (carry ["dist"]; dist/var/updownd.cubin from
# updownd-variant.patch; the last ~2 minutes of the session's device time).
# updownd: updown (call 9) in m128d's persistent kernel only (kAlternateWaves),
# the wave read from the unit's slot field, so no field is added and the
# other kernels keep their instruction counts. Two rounds on the scale and
# prefix rows (m128d's), the A/B's digests.
# Prediction: 32768 0.99, 8192/16384 0.98-1.0, the m128d prefix rows
# within 1%, the m128dv/m64 rows within noise and bitwise equal.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=dist
AB_ROUNDS=2 AB_TIMEOUT=60 OUT=$OUT/ab bash scripts/device-ab.sh shipped=$D/pagedattn \
  updownd=$D/pagedattn@--attention-cubin=$D/var/updownd.cubin \
  -- --workloads $D/scale.jsonl --workloads $D/prefix.jsonl > "$OUT/ab.txt" 2>&1
grep -vE "^\s*$" "$OUT/ab.txt" | grep -v "rc=0"
