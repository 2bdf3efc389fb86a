#!/usr/bin/env python3
"""Simulates the ticket protocol of the producer (attention.cu, producer())
over random unit times, for the shipped form (the next ticket claimed at a
unit's last block: one ahead) and for tk2 (claimed at each unit's start, two
ahead; tk2-variant.patch). Checks, for many (units n, grid G): every unit is
run exactly once, the counter is taken exactly as many times as
issue_ticket's modulus says, so the atomic increment wraps the counter back
to 0 at the call's end. Python 3 standard library only.
    python3 ticket-sim.py
"""
import heapq
import random


def simulate(n, g, ahead, rng):
    takes_total = max(0, n - 2 * g) + (ahead) * min(max(n - g, 0), g)
    counter = 0
    taken = 0
    done = []

    def take():
        nonlocal counter, taken
        raw = counter
        counter = 0 if counter == takes_total - 1 else counter + 1  # atom.inc modulo takes_total
        taken += 1
        return raw

    # event queue: (time, seq, cta); each CTA's state is a generator of its loop
    def cta(c):
        raws = []  # claimed raw values, oldest first
        it = 0
        while True:
            if it == 0:
                t = c
            elif it == 1:
                t = 2 * g - 1 - c
            else:
                t = 2 * g + raws.pop(0)
            if t >= n:
                return
            participates = 2 * g - 1 - c < n
            if ahead == 2 and participates:
                raws.append(take())  # unit it + 2's, at the unit's start
            yield rng.random()  # the unit's load time before its last block
            if ahead == 1 and it >= 1:
                raws.append(take())  # unit it + 1's, at the unit's last block
            done.append(t)
            yield rng.random() * 0.3
            it += 1

    q = []
    gens = {}
    for c in range(g):
        gens[c] = cta(c)
        heapq.heappush(q, (rng.random() * 0.01, c))
    while q:
        now, c = heapq.heappop(q)
        try:
            dt = next(gens[c])
            heapq.heappush(q, (now + dt, c))
        except StopIteration:
            pass
    assert sorted(done) == list(range(n)), (n, g, ahead, "units not run exactly once")
    assert taken == takes_total, (n, g, ahead, taken, takes_total)
    assert counter == 0, (n, g, ahead, "counter not reset", counter)


def main():
    rng = random.Random(1)
    cases = 0
    for g in (1, 2, 3, 7, 132, 264):
        for n in sorted({0, 1, g - 1, g, g + 1, 2 * g - 1, 2 * g, 2 * g + 1, 3 * g + 5, 10 * g + 3,
                         rng.randrange(1, 40 * g + 2)}):
            if n < 0:
                continue
            for ahead in (1, 2):
                for _ in range(3):
                    simulate(n, g, ahead, rng)
                    cases += 1
    print(f"ticket-sim: {cases} runs ok (every unit once, the counter reset, for one and two ahead)")


if __name__ == "__main__":
    main()
