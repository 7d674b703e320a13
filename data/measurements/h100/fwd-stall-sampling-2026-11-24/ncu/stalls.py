import csv, gzip, sys, collections
f = gzip.open(sys.argv[1], 'rt')
r = csv.reader(f)
next(r); hdr = next(r)
idx = {h: i for i, h in enumerate(hdr)}
stall_cols = [h for h in hdr if h.startswith('stall_') and 'Not Issued' not in h]
rows = []
for row in r:
    if len(row) < len(hdr): continue
    try: addr = int(row[idx['Address']], 16) if row[idx['Address']].startswith('0x') else int(row[idx['Address']])
    except: continue
    samp = int(row[idx['Warp Stall Sampling (All Samples)']] or 0)
    st = {h: int(row[idx[h]] or 0) for h in stall_cols}
    rows.append((addr, row[idx['Source']], samp, st, int(row[idx['Instructions Executed']] or 0)))
tot = sum(x[2] for x in rows)
print("total samples", tot, "instructions", len(rows))
agg = collections.Counter()
for x in rows: agg.update(x[3])
print("overall:", ", ".join(f"{k[6:]} {v/tot*100:.1f}%" for k, v in agg.most_common(10)))
# print top instructions
if len(sys.argv) > 2:
    lo, hi = int(sys.argv[2], 16), int(sys.argv[3], 16)
    sel = [x for x in rows if lo <= x[0] <= hi]
    s = sum(x[2] for x in sel); a = collections.Counter()
    for x in sel: a.update(x[3])
    print(f"range {sys.argv[2]}-{sys.argv[3]}: samples {s} ({s/tot*100:.1f}%):", ", ".join(f"{k[6:]} {v}" for k, v in a.most_common(6)))
    for x in sel:
        if x[2] > s * 0.01: print(f"  {x[0]:5x} {x[2]:6d} {x[4]:8d} {x[1][:60]:60s} " + " ".join(f"{k[6:]}={v}" for k, v in sorted(x[3].items(), key=lambda kv: -kv[1])[:3] if v))
