#!/usr/bin/env python3
"""The backward's cost per step and per CTA from windows.jsonl (this folder's call): for each window, the dK/dV grid's
GPU time (CUPTI) in SM cycles at the record's median clock, against the steps its CTAs walk (64 x 128 tiles x the 8 q
heads of each of the 8 kv heads; 2048 CTAs: 256 k tiles x 8 kv heads), and a least-squares line over the windows:
grid cycles x SMs = cycles per step x steps + fixed cycles per CTA x CTAs.

    python3 analysis.py [windows.jsonl]
"""
import json
import sys

SEQ, Q_TILE, K_TILE, KV_HEADS, GROUP, SMS = 32768, 64, 128, 8, 8, 132
CTAS = SEQ // K_TILE * KV_HEADS


def tiles_per_head(mask):
    """64 x 128 tiles a head's k columns touch: all of them for full; for a causal window of W keys, k tile t is seen
    by rows 128 t .. 128 t + 127 + W - 1."""
    if mask == "full":
        return (SEQ // Q_TILE) * (SEQ // K_TILE)
    window = int(mask.split("=")[1])
    last_q_tile = SEQ // Q_TILE - 1
    return sum(min(last_q_tile, (t * K_TILE + K_TILE - 1 + window - 1) // Q_TILE) - t * K_TILE // Q_TILE + 1
               for t in range(SEQ // K_TILE))


rows = []
for line in open(sys.argv[1] if len(sys.argv) > 1 else "windows.jsonl"):
    r = json.loads(line)
    if r["key"]["pass"] != "bwd":
        continue
    grid_ms = next(k["median_ms"] for k in r["kernels"] if "dkdv" in k["name"])
    mhz = r["sm_clock_mhz"]["median"]
    steps = tiles_per_head(r["key"]["mask"]) * KV_HEADS * GROUP
    cycles = grid_ms * 1e-3 * mhz * 1e6 * SMS
    rows.append((r["key"]["mask"], r["time_ms"]["median"], grid_ms, mhz, steps, cycles))
    print(f"{r['key']['mask']:34s} call {r['time_ms']['median']:8.3f} ms  grid {grid_ms:8.3f} ms  front "
          f"{r['time_ms']['median'] - grid_ms:.3f} ms  {mhz:5.0f} MHz  steps/CTA {steps / CTAS:7.1f}  "
          f"cycles per step per SM {cycles / steps:6.0f}")
windows = [(s, c) for m, _, _, _, s, c in rows if m != "full"]
n = len(windows)
mean_s = sum(s for s, _ in windows) / n
mean_c = sum(c for _, c in windows) / n
per_step = sum((s - mean_s) * (c - mean_c) for s, c in windows) / sum((s - mean_s) ** 2 for s, _ in windows)
per_cta = (mean_c - per_step * mean_s) / CTAS
print(f"windows: {per_step:.0f} cycles per step per SM, {per_cta:.0f} fixed cycles per CTA "
      f"({per_cta / per_step:.1f} steps)")
for s, c in windows:
    print(f"  steps/CTA {s / CTAS:7.1f}: line - measured {(per_step * s + per_cta * CTAS - c) / c * 100:+.1f}%")
