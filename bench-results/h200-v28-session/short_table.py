#!/usr/bin/env python3
"""Joins the twenty-second session's short decode-like calls: v17.4 (base)
and v17.5 (new) from call 5 (the held-out fourth draw from its abh/, the
other three draws and the wide draw's decode and prefix calls from ab/),
FlashInfer's best kernel-only time from the call that ran it (call 3: the
first two draws, call 4: the third, call 5: the fourth, call 1: the wide
draw), the configuration v17.5 launched.
    python3 bench-results/h200-v28-session/short_table.py
(reads callN/json.tgz and call1/table.md beside this file)."""
import glob, json, math, os, sys, tarfile, tempfile
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', '..', 'scripts'))
from join_peer import peer_from_json  # noqa: E402
tmp = tempfile.mkdtemp()
for c in (3, 4, 5):
    os.makedirs(f"{tmp}/c{c}")
    tarfile.open(f"{HERE}/call{c}/json.tgz").extractall(f"{tmp}/c{c}")
rows = lambda f: {r['name']: r for r in json.load(open(f))['rows']}
fi = {}
for f in [f"{tmp}/c3/j/flashinfer-peer.json", f"{tmp}/c4/j/flashinfer-peer-sdh2.json", f"{tmp}/c5/j/flashinfer-peer-sdh3.json"]:
    for n, v in peer_from_json(f).items():
        if v['graph']:
            fi[n] = min((t, b) for b, t in v['graph'].items())
for l in open(f"{HERE}/call1/table.md"):
    c = [x.strip() for x in l.split('|')]
    if len(c) > 3 and c[1].startswith('wide') and c[3] not in ('', '-'):
        t, b = c[3].split()
        fi[c[1]] = (float(t), b.strip('()'))
base = {**rows(f"{tmp}/c5/j/ab-base.json"), **rows(f"{tmp}/c5/j/ab-base.json".replace('ab-base', 'ab-base'))}
base, new = {}, {}
for d in ('abh', 'ab'):
    pass
for f in glob.glob(f"{tmp}/c5/j/*.json"):
    pass
