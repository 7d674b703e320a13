#!/usr/bin/env python3
"""lcab-predict kernel shows the part of a call's time spent in memory-bound passes outside the tile loop.

The built-in H100 profile's lcab_flash backward streams q_pass_bytes_per_element per q element through HBM (4: delta
reads dO and O; the fp32 dQ accumulator's conversion and its zeroing for the next call run in the grid's tail,
tail_pass_bytes_per_element, inside the busiest slot); its forward has none. The table's "passes ms" column and the records' extra "q_pass_ms"
must both say so, and the passes are part of the time.
"""
import json
import os

from kernel_output import PROFILES, check, predict_kernel, profile_entry

records, rows, columns = predict_kernel(["--impl", "lcab_flash", "--mask", "causal_document,full", "--seqlen", "32k",
                                         "--heads", "64", "--kv-heads", "8", "--head-dim", "128", "--pass", "fwd,bwd"], 4)
profile = json.load(open(os.path.join(PROFILES, "h100_sxm.json")))
hbm = profile["gpu"]["hbm_bytes_per_s"]["value"]
for record, row in zip(records, rows):
    key = record["key"]
    shown = float(row[columns["passes ms"]])
    if key["pass"] == "fwd":
        check(record["q_pass_ms"] == 0 and shown == 0, f"forward {key['mask']}: {record['q_pass_ms']}, {row}")
    else:
        bytes_per_element = profile_entry(profile, key)["q_pass_bytes_per_element"]["value"]
        expected_bwd_ms = bytes_per_element * 32768 * 64 * 128 / hbm * 1e3
        check(abs(record["q_pass_ms"] - expected_bwd_ms) < 1e-9, f"backward {key['mask']}: {record['q_pass_ms']}")
        check(abs(shown - expected_bwd_ms) < 1e-3, row)
        check(record["time_ms"]["median"] > record["q_pass_ms"], "the passes are part of the call's time")
print("kernel_passes: all checks passed")
