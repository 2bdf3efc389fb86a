#!/usr/bin/env bash
# Call 1 (forty-third session): C (dist/, main with direct-host.patch,
# the forty-second session's branch direct-host rebuilt after its loss:
# a host plan that splits no tile of a call whose tiles fit the resident
# CTAs launches direct; the plan image kept for every persistent-grid
# call) against B (dist/old: main), host plan, two rounds, on
# seed, wide, the four short-decode draws, the mix, fresh and tiny draws;
# the GPU tests on C; configurations forced on the tiny draw
# (tiny-draws.py: dist/ti.jsonl, calls shaped like vI21) and FlashInfer on
# it: h200-v45-session/call1.sh, whose body is the same (it generates
# the three draws there and writes one tar). Carry ["dist", ".peers"], made by prep-call1.sh here
# (dist's binaries compressed). The sweep's analysis, here afterwards,
# with the plans example built from main + direct-host.patch:
#   python3 bench-results/h200-v46-session/sweep-best.py c1/ti.txt ti.jsonl auto= \
#     m64=--tile=m64 s1=--tile=m64,--split=1 s2=--tile=m64,--split=2 s3=--tile=m64,--split=3 \
#     s4=--tile=m64,--split=4 n=--tile=m64,--split=never dv=--tile=m128dv dvs2=--tile=m128dv,--split=2
exec bash "$(dirname "$0")/../h200-v45-session/call1.sh"
