#!/usr/bin/env python3
"""Writes the cached-prefix sweep of the fifth session's calls 6 and 7
(`dist/sweep.jsonl` there; 7 MB, so not committed): twelve calls of 1-16
sequences, 16-1024 queries over 4096-32768 keys each (the queries are the
last keys), pages shuffled, where the estimated-time split and the rule
before it (split tiles longer than 1.5x the mean work per CTA) cut
differently.

    python3 scripts/make-sweep-workloads.py [OUT]          # default dist/sweep.jsonl
    python3 scripts/make-sweep-workloads.py --m64 [OUT]    # fewer than 16 queries per
                                                           # sequence (m64): dist/sweep-m64.jsonl
    python3 scripts/make-sweep-workloads.py --tiles [OUT]  # the sixth session's calls 7-8:
                                                           # dist/tile-sweep.jsonl
    python3 scripts/make-sweep-workloads.py --holdout [OUT]  # the seventeenth session's
                                                           # call 5: dist/holdout.jsonl
    python3 scripts/make-sweep-workloads.py --holdout2 [OUT]  # the eighteenth session's
                                                           # call 2: dist/holdout2.jsonl
    python3 scripts/make-sweep-workloads.py --holdout3 [OUT]  # call 3: dist/holdout3.jsonl
    python3 scripts/make-sweep-workloads.py --holdout4 [OUT]  # call 4's draw: dist/holdout4-all.jsonl
    python3 scripts/make-sweep-workloads.py --decode [OUT]    # dist/decode-sweep.jsonl
    python3 scripts/make-sweep-workloads.py --decode-holdout [OUT]  # dist/decode-holdout.jsonl
    python3 scripts/make-sweep-workloads.py --decode-holdout2 [OUT]  # dist/decode-holdout2.jsonl
    python3 scripts/make-sweep-workloads.py --decode2 [OUT]  # dist/decode-sweep2.jsonl
    python3 scripts/make-sweep-workloads.py --row-decode-holdout [OUT]  # dist/row-decode-holdout.jsonl

--tiles: calls of 1-3 sequences of 256-1280 tokens (kv_len == q_len, and a
few with a short cached prefix), whose m128 tiles fit in about one wave of
CTAs: where the tile configuration for one sequence was measured.

--holdout: cached prefixes that no rule was fitted on, to check
`TileConfig::prefers_m192` (fitted on prefix.jsonl and the sweep): 24 calls
of 1-24 sequences, each sequence's queries within 20% and keys within 30%
of the call's nominal (so lengths differ within a call and are not round).

--holdout2: a second held-out set, for the rule refitted on both (the
eighteenth session): 24 calls. The first twelve are calls the refitted
rule can take: queries within 5% of a nominal whose 192-row tiles pad no
more than 128-row ones, keys within 2% (a shared prefix of about one
length); the others have queries within 20% and keys within 30%.

--holdout3: a third, after the refit was checked on the second: 18 calls
the refitted rule can take or nearly (queries within 5% of such a nominal;
keys within 2% in the first twelve, within 8% in the other six, whose key
spread and blocks per CTA sit near the rule's limits).

--holdout4: a fourth, for the rule that models both configurations' plans
(fitted on the three before): random shapes (1-24 sequences, 20-300
queries over 1500-28000 keys, at least 8 keys a query), queries and keys
within 10% of the nominal, 379 calls (the eighteenth session's call 4 took
the first 12 the rule gives to m192 and the first 12 it does not:
`bench-results/h200-v24-session/prepare4.sh`).

--decode: decode-like calls (1-15 queries a sequence over 2048-65536 keys,
1-64 sequences, at most 131072 keys a call), all sequences of one length:
where the m64 tiles and the 128-row ones were measured against each other
(the nineteenth session's call 8 found m128dv 0.905-0.94 of m64's time on
some decode calls and slower on others); 16 calls, ~13 MB.

--decode-holdout: 16 random decode-like calls (1-128 sequences, 1-15
queries, 1024-65536 keys, at most 131072 keys a call), lengths within 10%
of the nominal: for checking a rule fitted on --decode.

--decode-holdout2: another 16 such calls (another draw), for checking the
rule once the first draw had been looked at.

--decode2: 16 decode-like calls at the edges of the decode rule
(schedule::decode_prefers_m128dv): 6-10 queries a sequence, and 33-128
sequences, all of one length.

--decode-holdout3: 16 random decode-like calls of 1-6 sequences (1-12
queries, 2048-65536 keys, at most 131072 keys a call), lengths within 10%:
for checking the decode rule's spread-merge exception (at most 3 sequences
of up to 10 queries over 32768 keys or more: m64), fitted on the four sets
above.

--short-decode: 20 random decode-like calls over short contexts (1-48
sequences of 1-16 queries over 256-4096 keys, lengths within 10% and 30%),
whose tiles are too few and too short for the automatic split of the
twenty-first session: where finer splits were measured (the twenty-second
session). --short-decode-holdout: another 20 such calls, for checking a
rule fitted on the first; --short-decode-holdout2: a third draw, for
checking the rule fitted on both (the decode rule's fine-split exception),
and --short-decode-holdout3 a fourth, after its key limit moved.
--short-decode-holdout4 (1-96 sequences) and --decode-holdout4: fresh
draws drawn after the decode rule's m64 split test and wide-batch limit
were fitted (the thirtieth session), for checking them.

--row-decode: 20 random decode-like calls of one or two queries a sequence
(1-32 sequences over 320-4096 keys): the calls the row split takes
(units::row_split_possible), drawn after it was fitted (the twenty-third
session). --row-decode-holdout: a fresh draw of the same kind, for m64's
row-split unit limit fitted on --row-decode and the short-decode draws (the
thirty-first session).

--spread: 8 small decode-like calls (1-3 sequences, 1-10 queries over
4600-12000 keys) that the automatic split cuts into 9 or more chunks in one
wave (the spread merge), for the sanitizers.
"""
import json
import random
import sys

SHAPES = [(1, 128, 32768), (2, 64, 32768), (1, 256, 8192), (1, 256, 16384), (4, 16, 32768),
          (8, 16, 32768), (16, 16, 16384), (1, 512, 32768), (1, 1024, 8192), (8, 128, 8192),
          (2, 512, 4096), (4, 64, 16384)]  # (sequences, queries, keys)
SHAPES_M64 = [(32, 4, 2048), (8, 1, 16384), (64, 8, 4096), (128, 1, 8192), (16, 4, 32768),
              (4, 8, 16384), (256, 2, 2048), (2, 12, 32768)]
SHAPES_HOLDOUT = [(1, 96, 12000), (1, 200, 20000), (1, 300, 6000), (1, 700, 9000), (2, 100, 9000),
                  (2, 170, 24000), (2, 48, 30000), (3, 80, 12000), (3, 150, 5000), (3, 400, 6000),
                  (4, 40, 20000), (4, 100, 3000), (5, 64, 9000), (6, 50, 7000), (6, 120, 2500),
                  (8, 40, 3000), (8, 72, 6000), (10, 48, 1500), (12, 32, 2000), (12, 64, 1200),
                  (16, 24, 5000), (20, 40, 900), (24, 24, 1500), (6, 96, 20000)]
SHAPES_HOLDOUT2 = [(1, 120, 10000), (1, 180, 24000), (2, 56, 20000), (2, 120, 6000), (3, 60, 12000),
                   (4, 56, 10000), (4, 116, 5000), (2, 180, 3000), (8, 60, 2000), (16, 56, 1200),
                   (3, 120, 16000), (1, 56, 30000),
                   (2, 64, 16000), (4, 64, 8000), (3, 100, 10000), (6, 40, 6000), (8, 100, 4000),
                   (12, 48, 2500), (8, 20, 8000), (4, 24, 12000), (2, 36, 20000), (32, 16, 2000),
                   (6, 200, 3000), (1, 600, 20000)]
SHAPES_HOLDOUT3 = [(1, 60, 20000), (1, 116, 6000), (1, 186, 12000), (2, 60, 9000), (2, 116, 12000),
                   (3, 56, 6000), (3, 120, 3000), (4, 60, 4000), (6, 56, 3000), (8, 56, 6000),
                   (12, 60, 1500), (6, 120, 1500),
                   (2, 60, 30000), (3, 116, 8000), (4, 56, 16000), (2, 120, 16000), (8, 60, 4000),
                   (1, 250, 12000)]
HOLDOUT4_DRAW = 400
SHAPES_DECODE = [(1, 1, 32768), (1, 2, 65536), (1, 4, 32768), (1, 8, 65536), (1, 12, 16384), (2, 1, 65536),
                 (2, 6, 32768), (4, 1, 32768), (4, 8, 16384), (8, 2, 16384), (8, 12, 8192), (16, 1, 8192),
                 (16, 4, 8192), (32, 1, 4096), (32, 8, 2048), (64, 2, 2048)]
# The decode rule's edges (BENCHMARKS "Next candidates", twentieth 3): 6-10
# queries a sequence, 33-128 sequences.
SHAPES_DECODE2 = [(4, 6, 16384), (8, 8, 8192), (16, 8, 4096), (32, 10, 2048), (8, 10, 16384), (16, 6, 8192),
                  (2, 9, 32768), (32, 6, 4096), (64, 12, 2048), (96, 14, 1024), (128, 11, 1024), (80, 15, 1536),
                  (48, 2, 1024), (40, 8, 2048), (64, 4, 1024), (48, 12, 2048)]
SHAPES_SPREAD = [(1, 1, 6000), (1, 8, 5200), (2, 3, 4700), (3, 10, 5000), (1, 2, 9000), (2, 6, 12000),
                 (1, 10, 4700), (3, 1, 8000)]
DECODE_HOLDOUT_CALLS = 16
SHAPES_TILES = [(1, L, L) for L in (256, 320, 384, 448, 512, 576, 640, 704, 768, 896, 1024, 1280)] + \
               [(2, 320, 320), (2, 384, 384), (2, 448, 448), (3, 320, 320), (1, 400, 600), (1, 600, 800),
                (2, 300, 500)]


# Mode: (fixed shapes, default output, seed of the lengths and pages, name prefix).
MODES = {
    "": (SHAPES, "dist/sweep.jsonl", 11, "sweep"),
    "--m64": (SHAPES_M64, "dist/sweep-m64.jsonl", 11, "sweep"),
    "--tiles": (SHAPES_TILES, "dist/tile-sweep.jsonl", 12, "tiles"),
    "--holdout": (SHAPES_HOLDOUT, "dist/holdout.jsonl", 23, "holdout"),
    "--holdout2": (SHAPES_HOLDOUT2, "dist/holdout2.jsonl", 29, "holdout2"),
    "--holdout3": (SHAPES_HOLDOUT3, "dist/holdout3.jsonl", 31, "holdout3"),
    "--holdout4": ([], "dist/holdout4-all.jsonl", 41, "holdout4"),
    "--decode": (SHAPES_DECODE, "dist/decode-sweep.jsonl", 43, "decode"),
    "--decode-holdout": ([], "dist/decode-holdout.jsonl", 47, "decodeho"),
    "--decode-holdout2": ([], "dist/decode-holdout2.jsonl", 61, "decodeho2"),
    "--decode2": (SHAPES_DECODE2, "dist/decode-sweep2.jsonl", 67, "decode2"),
    "--decode-holdout3": ([], "dist/decode-holdout3.jsonl", 71, "decodeho3"),
    "--spread": (SHAPES_SPREAD, "dist/spread.jsonl", 73, "spread"),
    "--short-decode": ([], "dist/short-decode.jsonl", 83, "sdec"),
    "--short-decode-holdout": ([], "dist/short-decode-holdout.jsonl", 89, "sdecho"),
    "--short-decode-holdout2": ([], "dist/short-decode-holdout2.jsonl", 107, "sdecho2"),
    "--short-decode-holdout3": ([], "dist/short-decode-holdout3.jsonl", 113, "sdecho3"),
    "--row-decode": ([], "dist/row-decode.jsonl", 131, "rdec"),
    "--short-decode-holdout4": ([], "dist/short-decode-holdout4.jsonl", 139, "sdecho4"),
    "--decode-holdout4": ([], "dist/decode-holdout4.jsonl", 149, "decodeho4"),
    "--row-decode-holdout": ([], "dist/row-decode-holdout.jsonl", 163, "rdecho"),
}
# The random decode draws: mode -> (seed of the draw of shapes, the batch
# sizes it draws from).
DECODE_DRAWS = {
    "--decode-holdout": (53, [1, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128]),
    "--decode-holdout2": (59, [1, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128]),
    "--decode-holdout3": (79, [1, 1, 1, 2, 2, 3, 3, 4, 5, 6]),
    "--short-decode": (97, [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48]),
    "--short-decode-holdout": (101, [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48]),
    "--short-decode-holdout2": (109, [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48]),
    "--short-decode-holdout3": (127, [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48]),
    "--row-decode": (137, [1, 1, 2, 2, 3, 4, 6, 8, 12, 16, 24, 32]),
    "--short-decode-holdout4": (151, [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96]),
    "--decode-holdout4": (157, [1, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128]),
    "--row-decode-holdout": (167, [1, 1, 2, 2, 3, 4, 6, 8, 12, 16, 24, 32]),
}
SHORT_DECODE_CALLS = 20


def main():
    args = sys.argv[1:]
    mode = next((a for a in args if a and a in MODES), "")
    args = [a for a in args if a != mode]
    fixed, default, seed, prefix = MODES[mode]
    shapes = list(fixed)
    if mode in DECODE_DRAWS:
        draw_seed, batches = DECODE_DRAWS[mode]
        draw = random.Random(draw_seed)
        calls = SHORT_DECODE_CALLS if mode.startswith(("--short-decode", "--row-decode")) else DECODE_HOLDOUT_CALLS
        while len(shapes) < calls:
            b = draw.choice(batches)
            if mode.startswith("--short-decode"):
                q, kv = draw.randint(1, 16), draw.choice([256, 384, 512, 768, 1024, 1536, 2048, 3000, 4096])
            elif mode.startswith("--row-decode"):
                q, kv = draw.randint(1, 2), draw.choice([320, 384, 448, 512, 640, 768, 1024, 1536, 2048, 3000, 4096])
            elif mode == "--decode-holdout3":
                q, kv = draw.randint(1, 12), draw.choice([2048, 4096, 8192, 12000, 16384, 24000, 32768, 48000,
                                                          65536])
            else:
                q, kv = draw.randint(1, 15), draw.choice([1024, 2048, 3000, 4096, 6000, 8192, 12000, 16384,
                                                          24000, 32768, 48000, 65536])
            if b * kv <= 131072 and (b, q, kv) not in shapes:
                shapes.append((b, q, kv))
    if mode == "--holdout4":
        draw = random.Random(37)
        for _ in range(HOLDOUT4_DRAW):
            b = draw.choice([1, 1, 2, 2, 3, 4, 5, 6, 8, 10, 12, 16, 24])
            q, kv = draw.randint(20, 300), draw.choice([1500, 2500, 4000, 6000, 9000, 12000, 16000, 20000, 28000])
            if kv >= 8 * q and (b, q, kv) not in shapes:
                shapes.append((b, q, kv))
    jitter = mode in ("--holdout", "--holdout2", "--holdout3", "--holdout4", *DECODE_DRAWS)
    out = args[0] if args else default
    rng = random.Random(seed)
    with open(out, "w") as f:
        for i, (b, q, kv) in enumerate(shapes):
            qs, ks = [q] * b, [kv] * b
            if jitter:
                q_jitter, kv_jitter = (0.2, 0.3)
                if mode == "--holdout2" and i < 12:
                    q_jitter, kv_jitter = (0.05, 0.02)
                elif mode.startswith(("--short-decode", "--row-decode")):
                    q_jitter, kv_jitter = (0.1, 0.3)
                elif mode in ("--holdout4", *DECODE_DRAWS):
                    q_jitter, kv_jitter = (0.1, 0.1)
                elif mode == "--holdout3":
                    q_jitter, kv_jitter = (0.05, 0.02 if i < 12 else 0.08)
                qs = [max(1, round(q * (1 + rng.uniform(-q_jitter, q_jitter)))) for _ in range(b)]
                ks = [max(x, round(kv * (1 + rng.uniform(-kv_jitter, kv_jitter)))) for x in qs]
            num_pages = sum(ks) + 1000
            perm = list(range(num_pages))
            rng.shuffle(perm)
            qo, kvp, idx = [0], [0], []
            for s in range(b):
                qo.append(qo[-1] + qs[s])
                kvp.append(kvp[-1] + ks[s])
                idx += perm[kvp[s]:kvp[s + 1]]
            w = {"name": f"{prefix}_b{b}_q{q}_kv{kv}", "total_q": qo[-1], "num_pages": num_pages,
                 "qo_indptr": qo, "kv_indptr": kvp, "kv_indices": idx, "sm_scale": 0.08838834764831845}
            f.write(json.dumps(w) + "\n")


if __name__ == "__main__":
    main()
