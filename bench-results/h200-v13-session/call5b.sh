#!/usr/bin/env bash
# Device call 5b (seventh session): which rows fail the fast path. The
# diagnostic build `why` (spec2 that prints the first 40 failing threads:
# unit, block, reference maxima, partial sums, last visible keys) on seed07.
# Its output (in the session's notes, not kept as a file): every failing
# row had its last visible key on the first key of the diagonal block
# (lastkey 128, 256, 384, 512), reference -1.7 .. -4.0, partial sums
# 260-1050, i.e. a reference taken from one key.
D=dist; timeout 60 $D/pagedattn bench --attention-cubin $D/var/why.cubin --workloads $D/seed.jsonl --filter seed07 > /tmp/why.txt 2>&1; grep WHY /tmp/why.txt | head -40; grep "workloads:" /tmp/why.txt
