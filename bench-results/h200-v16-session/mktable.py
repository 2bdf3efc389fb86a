#!/usr/bin/env python3
"""Joins the tenth session's call 3 (ours two rounds, FlashInfer fa2/fa3,
the dense anchor, one call) into final-table.md's rows.
    python3 bench-results/h200-v16-session/mktable.py CALL3_DIR
(CALL3_DIR/j: r1-ab-ours.json, r2-ab-ours.json, flashinfer-peer.json,
dense_anchor.json, as call3/json.tgz unpacks). Ours = the mean of the two
rounds' medians; FlashInfer = the faster of fa2 and fa3 (graph replay,
kernel only)."""
import json, math, os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'scripts'))
from join_peer import peer_from_json  # noqa: E402
j = sys.argv[1].rstrip('/') + '/j/'
L = lambda f: {r['name']: r for r in json.load(open(j + f))['rows']}
r1, r2 = L('r1-ab-ours.json'), L('r2-ab-ours.json')
fi = {n: min((t, b) for b, t in v['graph'].items())
      for n, v in peer_from_json(j + 'flashinfer-peer.json').items() if v['graph']}
dense = json.load(open(j + 'dense_anchor.json'))['rows']
print("| workload | floor us | FlashInfer us | ours us (r1 / r2) | ours / FlashInfer | TFLOP/s | dense cuDNN us (TFLOP/s) | launch | check |")
print("|---|---:|---:|---:|---:|---:|---:|---|---|")
G = {'seed': [], 'scale': [], 'all': []}
for n, a in r1.items():
    b = r2[n]
    t = (a['time_us'] + b['time_us']) / 2
    f = fi.get(n)
    ratio = t / f[0] if f else None
    if ratio:
        G['all'].append(ratio)
        for k in ('seed', 'scale'):
            if n.startswith(k):
                G[k].append(ratio)
    tf = a['flops'] / t / 1e6
    d = dense.get(n, {}).get('cudnn')
    ds = f"{d['us']:.1f} ({d['tflops']:.0f})" if d else ""
    ok = 'ok' if a['status'] == 'ok' and b['status'] == 'ok' else f"{a['status']}/{b['status']}"
    print(f"| {n} | {a['floor_us']:.2f} | {f'{f[0]:.1f} ({f[1]})' if f else '-'} | {a['time_us']:.1f} / {b['time_us']:.1f} | "
          f"{f'{ratio:.3f}' if ratio else '-'} | {tf:.0f} | {ds} | {a['launch']} | {ok} |")
gm = lambda v: math.exp(sum(map(math.log, v)) / len(v)) if v else float('nan')
print()
print(f"geomean ours / FlashInfer: seed {gm(G['seed']):.3f} ({len(G['seed'])} rows), scale {gm(G['scale']):.3f}, "
      f"all with a FlashInfer time {gm(G['all']):.3f} ({len(G['all'])} rows)")
