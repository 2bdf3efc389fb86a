#!/usr/bin/env bash
# Fourteenth session, call 3 (carry ["dist"]; dist/ from scripts/dist.sh at
# the commit of call 2, dist/var/eqr.cubin from eqr-variant.patch on its
# kernels): eqr, the early Q release of the one-slot kernels (m128d).
#   What it changes: m128d's epilogue stores the output from registers
#   (each quad 16 contiguous bytes of a row per store) instead of staging it
#   in the Q slot, so every consumer thread releases the slot right after
#   the unit's last QK GEMM (after the fallback's recompute, if any), and
#   the producer loads the next unit's Q under this unit's last PV and
#   epilogue.
#   Prediction: the measured later-unit Q wait of m128d (2000-2300 cycles
#   per unit) and the staging's barriers go: long rows (8192-32768: units of
#   ~64-128 blocks, ~3300 cycles each) ~1% faster, the m128d cached
#   prefixes (units of ~32 blocks, several per CTA) 2-3%; direct m128d
#   (seed07/08) within 1% either way (register stores instead of coalesced
#   16-byte ones); m128dv, m64 rows unchanged; bits equal.
bash scripts/device-variant.sh eqr dist/var/eqr.cubin
