#!/usr/bin/env python3
"""Median timeline of a q-tile row's end and the next row's start, in SM cycles, from a forward phase trace
(instrument.py's events): every event of item i (from the loop's end) and of item i + 1 (up to its first P), for
both consumer warpgroups (WG0, WG1) and the loader (WG2), relative to WG0's turn for item i's last P V.
    python3 phases.py trace-MASK.txt[.gz]
Event 9 is the staging barrier in main's order; in the row-totals-under-pv build it is the end of the row totals."""
import gzip, statistics as st, sys

opener = gzip.open if sys.argv[1].endswith(".gz") else open
rows = {}
for line in opener(sys.argv[1], "rt"):
    v = list(map(int, line.split()))
    rows[(v[0], v[1], v[2])] = v[3:]
names = ["start", "Q ready", "K0 ready", "turn for S0", "S0 done", "P0 ready", "loop end", "turn for last PV",
         "last PV done", "e9", "done"]
acc = {}
for (c, w, i), e in rows.items():
    if w != 0 or i < 2 or not e[7]:
        continue
    if not all(rows.get((c, ww, j)) and rows[(c, ww, j)][0] for ww in (0, 1) for j in (i, i + 1)):
        continue
    ref = e[7]
    for ww in (0, 1):
        a, b = rows[(c, ww, i)], rows[(c, ww, i + 1)]
        for k in range(6, 11):
            acc.setdefault((ww, "cur", names[k]), []).append(a[k] - ref)
        for k in range(0, 6):
            acc.setdefault((ww, "next", names[k]), []).append(b[k] - ref)
    l = rows.get((c, 2, i + 1))
    if l and l[0]:
        for k, n in enumerate(["loader: item read", "loader: Q issued", "loader: K0 issued"]):
            acc.setdefault((2, "next", n), []).append(l[k] - ref)
for t, k in sorted((st.median(v), k) for k, v in acc.items()):
    print(f"{t:8.0f}  WG{k[0]} {k[1]:4s} {k[2]}")
