#!/usr/bin/env python3
"""The fit of NOTE.md: python3 fit.py points.jsonl (cycles per SM = time x SM clock; per row and per tile)."""
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
SMS = 132
def tiles(mask):  # 128x128 tiles per head
    if 'band' in mask:
        n = int(mask.split('band')[1].split('.')[0]); return 256 * n - n * (n - 1) // 2
    if mask == 'full': return 256 * 256
    if mask.startswith('sliding'): return 2304 - 36
out = {}
for r in rows:
    k = r['key']; c = r['sm_clock_mhz']['median']; t = r['time_ms']['median']
    per_sm = t * 1e-3 * c * 1e6  # cycles of the kernel span (each SM)
    out.setdefault((k['pass'], k['head_dim']), []).append((k['mask'].split('/')[-1], per_sm, tiles(k['mask'].split('/')[-1])))
for (p, hd), pts in out.items():
    heads = 64
    fit = [(m, cyc, tl) for m, cyc, tl in pts if 'band' in m and int(m[4:].split('.')[0]) >= 4]
    X = [(256 * heads / SMS, tl * heads / SMS) for _, _, tl in fit]; y = [c for _, c, _ in fit]
    s11 = sum(a * a for a, _ in X); s12 = sum(a * b for a, b in X); s22 = sum(b * b for _, b in X)
    t1 = sum(a * v for (a, _), v in zip(X, y)); t2 = sum(b * v for (_, b), v in zip(X, y))
    det = s11 * s22 - s12 * s12
    row_cost = (t1 * s22 - t2 * s12) / det; tile_cost = (s11 * t2 - s12 * t1) / det
    print(f"{p} hd{hd}: per 128x128 tile {tile_cost:6.0f} cycles, per q-tile row {row_cost:6.0f} cycles (fit on band4..band64)")
    d = dict((m, (cyc, tl)) for m, cyc, tl in pts)
    for m, (cyc, tl) in sorted(d.items(), key=lambda x: x[1][1]):
        model = row_cost * 256 * heads / SMS + tile_cost * tl * heads / SMS
        print(f"   {m:24s} {cyc/1e3:9.0f} k cycles  fit {model/1e3:9.0f} k  ({(cyc/model-1)*100:+5.1f}%)")
    sw, b9 = d['sliding_window_causal'][0], d['band9.json'][0]
    partial = (2 * 256 - 1 - 8) * heads / SMS  # partial tiles per SM (the first 8 rows have one)
    print(f"   window - band9: {(sw - b9)/1e3:.0f} k cycles per SM = {(sw - b9) / partial:.0f} per partial tile")
