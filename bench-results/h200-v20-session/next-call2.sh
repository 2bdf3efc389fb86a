#!/usr/bin/env bash
# Prepared in the fourteenth session, not run (inputs from prepare-next.sh;
# carry ["dist"]; about 6 minutes): m64v, a diagnostic of m64 with V's third
# stage (m64v-variant.patch: TraitsM64 with a 3-deep V ring; its plan shrunk
# to 16 sequences to fit two CTAs per SM, so m64 calls of more than 16
# sequences take the fallback order in this cubin and their times say
# nothing). The question: does V's third stage help m64 as it helped m128
# (m128dv: 3.5-4.4% on batches of short tiles)?
# Prediction: m64 rows of up to 16 sequences whose units have 3+ blocks
# (seed14, seed16, q_gt_kv_b8, seed06) 2-4% faster, seed00-05 (1-2 blocks
# a unit) equal; bits equal on those rows (same math, same order). If so:
# a fifth configuration for m64 calls of up to 16 sequences (the inline
# plan's batches).
bash scripts/device-variant.sh m64v dist/var/m64v.cubin
