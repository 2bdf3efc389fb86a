#!/usr/bin/env python3
"""Joins call3's reports into final-table.md: this build, 7c9e025's binary
and FlashInfer's best of fa2/fa3 (kernel-only graph time), one row each.
    python3 bench-results/h200-v14-session/mktable.py DIR_WITH_j
"""
import json, math, sys
J = sys.argv[1].rstrip('/') + '/j/'
L = lambda f: {r['name']: r for r in json.load(open(J + f))['rows']}
new, v7 = L('r1-ab-new.json'), L('r1-ab-v7c.json')
fi = {}
for w in json.load(open(J + 'flashinfer-peer.json'))['workloads']:
    best = None
    for be, v in w['backends'].items():
        t = (v.get('t_graph') or {}).get('median_us')
        if v.get('ok') and t and (best is None or t < best[0]):
            best = (t, be)
    if best:
        fi[w['name']] = best
out = ["| workload | floor us | FlashInfer graph us (backend) | ours us | launch | ours / FlashInfer | ours / floor | 7c9e025 us | ours / 7c9e025 | check |",
       "|---|---:|---:|---:|---|---:|---:|---:|---:|---|"]
G = {'seed': [], 'ss': [], 'all': [], 'v7': []}
above, slow7 = [], []
for n, r in new.items():
    m = r['time_us']
    v = v7.get(n, {}).get('time_us')
    f = fi.get(n)
    rf = m / f[0] if f else None
    if rf:
        G['all'].append(rf)
        if n.startswith('seed'):
            G['seed'].append(rf)
        if n.startswith(('seed', 'scale')):
            G['ss'].append(rf)
        if rf > 1.0:
            above.append(f"{n} {rf:.2f}")
    if v:
        G['v7'].append(m / v)
        if n.startswith(('seed', 'scale')) and m / v > 1.03:
            slow7.append(f"{n} {m / v:.3f}")
    ok = 'ok' if r['status'] == 'ok' and v7.get(n, {}).get('status') == 'ok' else f"{r['status']}/{v7.get(n, {}).get('status')}"
    out.append(f"| {n} | {r['floor_us']:.2f} | " + (f"{f[0]:.1f} ({f[1]})" if f else "-") + f" | {m:.1f} | {r.get('launch', '?')} | "
               + (f"{rf:.2f}" if rf else "-") + f" | {m / r['floor_us']:.1f} | " + (f"{v:.1f} | {m / v:.3f}" if v else "- | -") + f" | {ok} |")
gm = lambda v: math.exp(sum(map(math.log, v)) / len(v))
out += ["",
        f"geomean ours / FlashInfer: seed {gm(G['seed']):.3f}, seed + scale ({len(G['ss'])}) {gm(G['ss']):.3f}, "
        f"all with FlashInfer ({len(G['all'])}) {gm(G['all']):.3f}; ours / 7c9e025 over {len(G['v7'])} rows {gm(G['v7']):.3f}",
        "above 1.0: " + (", ".join(above) or "none"),
        "more than 3% slower than 7c9e025 (seed/scale): " + (", ".join(slow7) or "none")]
for n in ('scale_single_4096', 'scale_single_8192', 'scale_single_16384', 'scale_single_32768', 'scale_batch16x2048'):
    out.append(f"{n}: {new[n]['tflops']:.0f} TFLOP/s")
print("\n".join(out))
