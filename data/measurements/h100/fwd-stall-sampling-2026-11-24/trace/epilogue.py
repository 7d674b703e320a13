#!/usr/bin/env python3
"""The epilogue's steps per consumer warpgroup (medians, p10, p90 over items, SM cycles) from a forward phase trace
with instrument.py's epilogue events (12-15, and warp 3's 9, 12, 14).
    python3 epilogue.py trace-MASK.txt[.gz]"""
import gzip, statistics as st, sys

opener = gzip.open if sys.argv[1].endswith(".gz") else open
rows = {}
for line in opener(sys.argv[1], "rt"):
    v = list(map(int, line.split()))
    rows[(v[0], v[1], v[2])] = v[3:]
for w in (0, 1):
    seg = {}
    for (c, ww, i), e in rows.items():
        if ww != w or i < 2 or not e[9] or not e[10]:
            continue
        seq = [("last PV done", e[8]), ("barrier 1", e[9]), ("O staged", e[12]), ("fenced", e[13]),
               ("barrier 2", e[14]), ("TMA issued", e[15]), ("done", e[10])]
        for (a, ta), (b, tb) in zip(seq, seq[1:]):
            seg.setdefault(f"{a} -> {b}", []).append(tb - ta)
        w3 = rows.get((c, 3 + w, i))
        if w3 and w3[9]:
            seg.setdefault("warp 3: barrier 1 -> O staged", []).append(w3[12] - w3[9])
    print(f"WG{w}")
    for k, v in seg.items():
        v = sorted(v)
        print(f"   {k:34s} median {st.median(v):7.0f}  p10 {v[len(v) // 10]:7d}  p90 {v[9 * len(v) // 10]:7d}")
