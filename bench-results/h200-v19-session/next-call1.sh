#!/usr/bin/env bash
# Prepared in the thirteenth session, not run (inputs from prepare-next.sh;
# carry ["dist"]; about 6 minutes): k2v3's full checks (GPU tests,
# reliability, the four sanitizers through both plans: call 6 ran out of
# time inside them) and two rounds beside v15.1 with digests.
#   prediction (call 5 measured it once): seed geomean ~0.99, m128d rows of
#   2-3 units per CTA 4-6% faster (seed11, seed15, scale_single_1024/2048,
#   seq2048_*, prefix_*_kv1024_*), 16384/32768 ~1.6% slower and the long
#   cached prefixes 2-3% slower; bits equal. Then BENCHMARKS "Next
#   candidates" 1: a fourth configuration for the first group, or the new
#   m128d if the long rows are within noise.
bash scripts/device-variant.sh k2v3 dist/var/k2v3.cubin
