#!/usr/bin/env python3
"""Joins the twenty-second session's short decode-like calls: v17.4 (base)
and v17.5, FlashInfer's best kernel-only time from the call that ran it
(call 3: the first two short-decode draws, call 4: the third, call 5: the
fourth, call 1: the wide draw), and the configuration v17.5's host plan
takes (v17.5-configs.txt, from HostPlan::new). v17.5's kernel and split
ran in calls 3-5; only the decode rule changed after (its key limit), so
v17.5's time of a call is the column of the configuration it takes: call
3's `m64` (m64 forced, the same split) or `new` (the configuration of
v17.4's rule) for the first two draws and the wide draw's decode and
prefix calls, call 4's `m128dv` or `new` for the third, call 5's `new` for
the fourth. v17.4 is each call's `base`.
    python3 bench-results/h200-v28-session/short_table.py
(reads callN/json.tgz, call4/logs.tgz and call1/table.md beside this file)."""
import json, math, os, sys, tarfile, tempfile
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', '..', 'scripts'))
from join_peer import peer_from_json  # noqa: E402
tmp = tempfile.mkdtemp()
for c in (3, 4, 5):
    if os.path.exists(f"{HERE}/call{c}/json.tgz"):
        os.makedirs(f"{tmp}/c{c}")
        tarfile.open(f"{HERE}/call{c}/json.tgz").extractall(f"{tmp}/c{c}")
rows = lambda f: {r['name']: r for r in json.load(open(f))['rows']}
fi = {}
for f in [f"{tmp}/c3/j/flashinfer-peer.json", f"{tmp}/c4/j/flashinfer-peer-sdh2.json",
          f"{tmp}/c5/j/flashinfer-peer-sdh3.json"]:
    if not os.path.exists(f):
        continue
    for n, v in peer_from_json(f).items():
        if v['graph']:
            fi[n] = min((t, b) for b, t in v['graph'].items())
for l in open(f"{HERE}/call1/table.md"):
    c = [x.strip() for x in l.split('|')]
    if len(c) > 3 and c[1].startswith('wide') and c[3] not in ('', '-'):
        t, b = c[3].split()
        fi[c[1]] = (float(t), b.strip('()'))
cfg = dict(l.split() for l in open(f"{HERE}/v17.5-configs.txt"))
base, new = {}, {}
c3 = {k: rows(f"{tmp}/c3/j/ab-{k}.json") for k in ('base', 'new', 'm64')}
for n in c3['base']:
    base[n] = c3['base'][n]
    new[n] = c3['m64' if cfg[n] == 'm64' else 'new'][n]
# Call 4's json.tgz holds the main sets' base and new under the same names;
# its draw's reports are in logs.tgz (abh/).
os.makedirs(f"{tmp}/c4l")
tarfile.open(f"{HERE}/call4/logs.tgz").extractall(f"{tmp}/c4l")
c4 = {k: rows(f"{tmp}/c4l/abh/ab-{k}.json") for k in ('base', 'new', 'm128dv')}
for n in c4['base']:
    base[n] = c4['base'][n]
    new[n] = c4['m128dv' if cfg[n] == 'm128dv' else 'new'][n]
if os.path.exists(f"{HERE}/call5/json.tgz"):
    c5 = {k: rows(f"{tmp}/c5/j/abh-ab-{k}.json") for k in ('base', 'new')}
    for n in c5['base']:
        base[n], new[n] = c5['base'][n], c5['new'][n]
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
    print(s + f" {cfg[n]} |")
print()
print(f"geomean: v17.5 / v17.4 {gm(R['new/base']):.3f} ({len(R['new/base'])} rows); "
      f"with a FlashInfer time ({len(R['new/fi'])} rows): v17.4 / FI {gm(R['base/fi']):.3f}, v17.5 / FI {gm(R['new/fi']):.3f}")
print(f"above FlashInfer: v17.4 {len(above['base'])} rows, v17.5 {len(above['new'])}: {', '.join(above['new'])}")
