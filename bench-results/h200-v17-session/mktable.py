#!/usr/bin/env python3
"""Joins the eleventh session's call 2 (ours in rounds, FlashInfer fa2/fa3,
the dense anchor, one call) into final-table.md's rows.
    python3 bench-results/h200-v17-session/mktable.py CALL2_DIR
(CALL2_DIR/j: rN-ab-ours.json for each round, flashinfer-peer.json,
dense_anchor.json, as call2/json.tgz unpacks). Ours = the mean of the
rounds' medians; FlashInfer = the faster of fa2 and fa3 (graph replay,
kernel only)."""
import glob, json, math, os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'scripts'))
from join_peer import peer_from_json  # noqa: E402
j = sys.argv[1].rstrip('/') + '/j/'
L = lambda f: {r['name']: r for r in json.load(open(j + f))['rows']}
rounds = [L(os.path.basename(f)) for f in sorted(glob.glob(j + 'r*-ab-ours.json'))]
r1 = rounds[0]
fi = {n: min((t, b) for b, t in v['graph'].items())
      for n, v in peer_from_json(j + 'flashinfer-peer.json').items() if v['graph']}
dense = json.load(open(j + 'dense_anchor.json'))['rows'] if os.path.exists(j + 'dense_anchor.json') else {}
heads = " / ".join(f"r{i + 1}" for i in range(len(rounds)))
print("| workload | floor us | FlashInfer us | ours us (" + heads + ") | ours / FlashInfer | TFLOP/s | dense cuDNN us (TFLOP/s) | launch | check |")
print("|---|---:|---:|---:|---:|---:|---:|---|---|")
G = {'seed': [], 'scale': [], 'all': []}
for n, a in r1.items():
    rr = [r[n] for r in rounds]
    t = sum(r['time_us'] for r in rr) / len(rr)
    f = fi.get(n)
    ratio = t / f[0] if f else None
    if ratio:
        G['all'].append(ratio)
        for k in ('seed', 'scale'):
            if n.startswith(k):
                G[k].append(ratio)
    times = " / ".join(f"{r['time_us']:.1f}" for r in rr)
    tf = a['flops'] / t / 1e6
    d = dense.get(n, {}).get('cudnn')
    ds = f"{d['us']:.1f} ({d['tflops']:.0f})" if d else ""
    ok = 'ok' if all(r['status'] == 'ok' for r in rr) else "/".join(r['status'] for r in rr)
    print(f"| {n} | {a['floor_us']:.2f} | {f'{f[0]:.1f} ({f[1]})' if f else '-'} | {times} | "
          f"{f'{ratio:.3f}' if ratio else '-'} | {tf:.0f} | {ds} | {a['launch']} | {ok} |")
gm = lambda v: math.exp(sum(map(math.log, v)) / len(v)) if v else float('nan')
print()
print(f"geomean ours / FlashInfer: seed {gm(G['seed']):.3f} ({len(G['seed'])} rows), scale {gm(G['scale']):.3f}, "
      f"all with a FlashInfer time {gm(G['all']):.3f} ({len(G['all'])} rows)")
