#!/usr/bin/env bash
# Prepared in the twelfth session, not run (inputs from prepare-next.sh;
# carry ["dist"]; about 6 minutes): pcopy (pcopy-variant.patch). On the
# two-slot kernels (m128, m64; planned calls) the consumers stage a unit's
# output in its Q slot and leave; the producer, which waits for that slot a
# unit later to refill it, copies the staged rows to global memory first
# (and, at its end, the other slot's last unit). Split chunks still copy
# their own. No new barrier id, no shared memory; m128d and the direct
# kernels are unchanged (their SASS is the shipped one's).
#   why: call 3 (unitcost) put the consumers' copies at 780-1740 cycles
#   per unit (seed10 814, seed13 1260, batch64x512 1742; m64 806-991), with
#   their second barrier, while the two-slot producer waits for its slot.
#   prediction: the m128 rows of short units 3-10% faster (batch64x512,
#   b16x512_pages_repeated, seed13, seed10, seed19), m64 rows between 5%
#   faster and 5% slower (their producer may be what they wait on: kvpre was
#   equal), m128d and direct rows unchanged; bits equal everywhere.
bash scripts/device-variant.sh pcopy dist/var/pcopy.cubin
