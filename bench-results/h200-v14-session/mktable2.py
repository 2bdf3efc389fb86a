#!/usr/bin/env python3
"""Joins call 3 (cb527a7, 7c9e025's binary, FlashInfer) with call 9 (cb527a7
against this build, with m128d) into final-table-v13.1.md's rows.
    python3 bench-results/h200-v14-session/mktable2.py CALL3_DIR CALL9_DIR
(each the folder with json.tgz unpacked: CALL3_DIR/j/r1-ab-*.json and
flashinfer-peer.json, CALL9_DIR/j/ab-*.json)."""
import json, math, sys
c3, c9 = sys.argv[1].rstrip('/') + '/j/', sys.argv[2].rstrip('/') + '/j/'
L = lambda f: {r['name']: r for r in json.load(open(f))['rows']}
old3, v7, prev, new = L(c3 + 'r1-ab-new.json'), L(c3 + 'r1-ab-v7c.json'), L(c9 + 'ab-prev.json'), L(c9 + 'ab-new.json')
fi = {}
for w in json.load(open(c3 + 'flashinfer-peer.json'))['workloads']:
    best = None
    for be, v in w['backends'].items():
        t = (v.get('t_graph') or {}).get('median_us')
        if v.get('ok') and t and (best is None or t < best[0]):
            best = (t, be)
    if best:
        fi[w['name']] = best
out = ["| workload | floor us | FlashInfer us (call 3) | cb527a7 us (call 3) | cb527a7 / FlashInfer | 7c9e025 us (call 3) | cb527a7 / 7c9e025 | launch (this build) | cb527a7 us (call 9) | this build us (call 9) | this build / cb527a7 | check |",
       "|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---|"]
G = {'seed': [], 'ss': [], 'all': [], 'v7': [], 'nv': [], 'nvseed': []}
for n, r in old3.items():
    f, v, p, q = fi.get(n), v7[n]['time_us'], prev[n]['time_us'], new[n]['time_us']
    m = r['time_us']
    if f:
        G['all'].append(m / f[0])
        if n.startswith('seed'):
            G['seed'].append(m / f[0])
        if n.startswith(('seed', 'scale')):
            G['ss'].append(m / f[0])
    G['v7'].append(m / v)
    G['nv'].append(q / p)
    if n.startswith('seed'):
        G['nvseed'].append(q / p)
    ok = 'ok' if all(d[n]['status'] == 'ok' for d in (old3, v7, prev, new)) else 'see reports'
    out.append(f"| {n} | {r['floor_us']:.2f} | " + (f"{f[0]:.1f} ({f[1]})" if f else "-") + f" | {m:.1f} | "
               + (f"{m / f[0]:.2f}" if f else "-") + f" | {v:.1f} | {m / v:.3f} | {new[n].get('launch', '?')} | {p:.1f} | {q:.1f} | {q / p:.3f} | {ok} |")
gm = lambda v: math.exp(sum(map(math.log, v)) / len(v))
out += ["",
        f"call 3: cb527a7 / FlashInfer seed {gm(G['seed']):.3f}, seed + scale {gm(G['ss']):.3f}, all {len(G['all'])} {gm(G['all']):.3f}; "
        f"cb527a7 / 7c9e025 {gm(G['v7']):.3f} over {len(G['v7'])} rows",
        f"call 9: this build / cb527a7 {gm(G['nv']):.3f} over {len(G['nv'])} rows, seed {gm(G['nvseed']):.3f}"]
for n in ('scale_single_4096', 'scale_single_8192', 'scale_single_16384', 'scale_single_32768', 'scale_batch16x2048'):
    out.append(f"{n}: this build {new[n]['tflops']:.0f} TFLOP/s, cb527a7 {prev[n]['tflops']:.0f} (call 9)")
print("\n".join(out))
