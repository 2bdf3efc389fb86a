#!/usr/bin/env bash
# Prepared in the twelfth session, not run (inputs from prepare-next.sh;
# carry ["dist"]; about 6 minutes): tk2 (tk2-variant.patch). The producer's
# thread 0 claims each ticket at the start of the unit two before the one
# it is for (a unit ahead of today's claim at the unit's last block), so
# the atomic's round trip is long over when the decode needs it; every CTA
# that takes the counter takes it twice past the units, and issue_ticket's
# modulus counts that (ticket-sim.py checks the arithmetic: every unit run
# once, the counter back to 0).
#   prediction: if the ticket's round trip is what the m64 producer's
#   decode (2800-4400 cycles per unit, call 1) waits on (next-call1.sh
#   says), the m64 host-plan rows of one-block units (tiny_*, seed18,
#   seed12, empty_and_short_b40, q_gt_kv_b8) 5-15% faster; if not, equal.
#   Risk: a unit claimed a unit earlier leaves the CTA that takes it less
#   free to balance (claiming two 64-key blocks earlier made seed09 8%
#   slower in v7.6): seed09, seed12 and seed14 may lose.
#   Bits equal everywhere (a unit's arithmetic does not depend on its CTA).
bash scripts/device-variant.sh tk2 dist/var/tk2.cubin
