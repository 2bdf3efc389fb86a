#!/usr/bin/env python3
"""The thirty-ninth session's fresh draw for m192's one-wave bound
(schedule::M192_MODEL_ONE_WAVE_MAX_RATIO_PCT), pages shuffled, written as
JSONL workloads (h200-v39-session/prefix-draws.py's writer):
    python3 val-draws.py OUT.jsonl
One sequence of 180-700 queries over 5-40 keys a query (at most 24000
keys; the 128-row tiles in one wave) was drawn 600 times (seed 39042);
the calls below are 30 of those m192's model puts at 0.93-1.03 of the
128-row tiles (the bound moves them to m192), 16 at 1.03-1.15 (left) and
6 below 0.93 (m192 before and after), with the model's ratio in the
name. vE: three of the first kind with empty sequences beside."""
import importlib.util, pathlib, random, sys

_spec = importlib.util.spec_from_file_location(
    "prefix_draws", pathlib.Path(__file__).parent.parent / "h200-v39-session" / "prefix-draws.py")
prefix_draws = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(prefix_draws)

# (queries, keys, the model's ratio m192 / 128-row tiles in percent)
CALLS = [
    (351, 2561, 75), (351, 3835, 75), (344, 4315, 78), (479, 5571, 83), (476, 5218, 84),
    (394, 3192, 89), (511, 20098, 93), (414, 2312, 94), (355, 2430, 94), (407, 2240, 95),
    (390, 2277, 95), (359, 2167, 96), (386, 2072, 96), (374, 3302, 96), (384, 3835, 96),
    (403, 3107, 97), (378, 3125, 97), (388, 3580, 98), (380, 3479, 98), (381, 3531, 98),
    (441, 4038, 98), (383, 3896, 99), (382, 4437, 99), (441, 4429, 99), (381, 4976, 99),
    (467, 4657, 101), (410, 5110, 102), (400, 5053, 102), (375, 4024, 102), (387, 5938, 102),
    (372, 4874, 102), (445, 4938, 102), (458, 6311, 102), (384, 4399, 103), (256, 4081, 103),
    (434, 7278, 103), (657, 24000, 104), (695, 24000, 104), (682, 22298, 105), (550, 19725, 105),
    (648, 19210, 106), (353, 9264, 106), (450, 9269, 106), (578, 18444, 106), (660, 18429, 106),
    (367, 8587, 107), (454, 8974, 107), (650, 13031, 108), (319, 6123, 111), (290, 5785, 112),
    (669, 8109, 113), (583, 8367, 113),
]


def calls():
    out = [(f"vD{i}_r{r}_q{q}_kv{kv}", [q], [kv]) for i, (q, kv, r) in enumerate(CALLS)]
    for i, (q, kv, r) in enumerate(CALLS[8:32:9]):
        out.append((f"vE{i}_r{r}_b3_q{q}_kv{kv}", [0, q, 0], [64, kv, 0]))
    return out


if __name__ == "__main__":
    prefix_draws.write(sys.argv[1], calls(), random.Random(39042))
