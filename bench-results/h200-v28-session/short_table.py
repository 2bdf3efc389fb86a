#!/usr/bin/env python3
"""Joins the twenty-second session's short decode-like calls: v17.4 (base)
and v17.5 (new) from call 5 (the fourth short-decode draw from its abh
reports, the other three draws and the wide draw's decode and prefix calls
from its ab reports), FlashInfer's best kernel-only time from the call that
ran it (call 3: the first two draws, call 4: the third, call 5: the fourth,
call 1: the wide draw), and the configuration v17.5 launched.
    python3 bench-results/h200-v28-session/short_table.py
(reads callN/json.tgz and call1/table.md beside this file)."""
import json, math, os, sys, tarfile, tempfile
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', '..', 'scripts'))
from join_peer import peer_from_json  # noqa: E402
tmp = tempfile.mkdtemp()
for c in (3, 4, 5):
    os.makedirs(f"{tmp}/c{c}")
    tarfile.open(f"{HERE}/call{c}/json.tgz").extractall(f"{tmp}/c{c}")
rows = lambda f: {r['name']: r for r in json.load(open(f))['rows']}
fi = {}
for f in [f"{tmp}/c3/j/flashinfer-peer.json", f"{tmp}/c4/j/flashinfer-peer-sdh2.json",
          f"{tmp}/c5/j/flashinfer-peer-sdh3.json"]:
    for n, v in peer_from_json(f).items():
        if v['graph']:
            fi[n] = min((t, b) for b, t in v['graph'].items())
for l in open(f"{HERE}/call1/table.md"):
    c = [x.strip() for x in l.split('|')]
    if len(c) > 3 and c[1].startswith('wide') and c[3] not in ('', '-'):
        t, b = c[3].split()
        fi[c[1]] = (float(t), b.strip('()'))
j = f"{tmp}/c5/j/"
base = {**rows(j + 'ab-ab-base.json'), **rows(j + 'abh-ab-base.json')}
new = {**rows(j + 'ab-ab-new.json'), **rows(j + 'abh-ab-new.json')}
print("| workload | v17.4 us | v17.5 us | v17.5 / v17.4 | FlashInfer us | v17.4 / FI | v17.5 / FI | v17.5 launch |")
print("|---|---:|---:|---:|---:|---:|---:|---|")
gm = lambda v: math.exp(sum(map(math.log, v)) / len(v)) if v else float('nan')
R = {'new/base': [], 'base/fi': [], 'new/fi': []}
above = {'base': [], 'new': []}
for n, a in base.items():
    b = new[n]
    f = fi.get(n)
    r = b['time_us'] / a['time_us']
    R['new/base'].append(r)
    s = f"| {n} | {a['time_us']:.1f} | {b['time_us']:.1f} | {r:.3f} | "
    if f:
        rb, rn = a['time_us'] / f[0], b['time_us'] / f[0]
        R['base/fi'].append(rb); R['new/fi'].append(rn)
        if rb > 1: above['base'].append(n)
        if rn > 1: above['new'].append(n)
        s += f"{f[0]:.1f} ({f[1]}) | {rb:.3f} | {rn:.3f} |"
    else:
        s += "- | - | - |"
    print(s + f" {b['launch']} |")
print()
print(f"geomean: v17.5 / v17.4 {gm(R['new/base']):.3f} ({len(R['new/base'])} rows); "
      f"with a FlashInfer time ({len(R['new/fi'])} rows): v17.4 / FI {gm(R['base/fi']):.3f}, v17.5 / FI {gm(R['new/fi']):.3f}")
print(f"above FlashInfer: v17.4 {len(above['base'])} rows, v17.5 {len(above['new'])}: {', '.join(above['new'])}")
