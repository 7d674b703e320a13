#!/usr/bin/env python3
"""lcab-predict kernel shows the part of a call's time spent in memory-bound passes outside the tile loop.

The built-in H100 profile's lcab_flash backward streams q_pass_bytes_per_element per q element through HBM (4: delta
reads dO and O; the fp32 dQ accumulator's conversion and its zeroing for the next call run in the grid's tail,
tail_pass_bytes_per_element, inside the busiest slot); its forward has none. The table's "passes ms" column and the records' extra "q_pass_ms"
must both say so, and the passes are part of the time.
"""
import json
import os
import subprocess
import sys

PREDICT = os.environ["LCAB_PREDICT"]
PROFILE = os.path.join(os.path.dirname(__file__), "..", "..", "data", "profiles", "h100_sxm.json")


def check(condition, message):
    if not condition:
        print("FAILED:", message)
        sys.exit(1)


ARGS = [PREDICT, "kernel", "--impl", "lcab_flash", "--mask", "causal_document,full", "--seqlen", "32k", "--heads", "64",
        "--kv-heads", "8", "--head-dim", "128", "--pass", "fwd,bwd"]
table = subprocess.run(ARGS, capture_output=True, text=True)
check(table.returncode == 0, table.stderr)
json_out = subprocess.run(ARGS + ["--json", "-"], capture_output=True, text=True)
check(json_out.returncode == 0, json_out.stderr)
records = [json.loads(l) for l in json_out.stdout.splitlines() if l.startswith("{")]
lines = table.stdout.splitlines()
rows = [l for l in lines if l.startswith("| lcab_flash")]
check(len(records) == 4 and len(rows) == 4, table.stdout + json_out.stdout)
header = [c.strip() for c in next(l for l in lines if l.startswith("| impl")).split("|")]
column = header.index("passes ms")

profile = json.load(open(PROFILE))
hbm = profile["gpu"]["hbm_bytes_per_s"]["value"]
bytes_per_element = [k for k in profile["kernels"] if k["impl"] == "lcab_flash" and k["pass"] == "bwd"
                     and k["head_dim"] == 128 and k["dtype"] == "bf16"][0]["q_pass_bytes_per_element"]["value"]
expected_bwd_ms = bytes_per_element * 32768 * 64 * 128 / hbm * 1e3
for record, row in zip(records, rows):
    key = record["key"]
    shown = float(row.split("|")[column])
    if key["pass"] == "fwd":
        check(record["q_pass_ms"] == 0 and shown == 0, f"forward {key['mask']}: {record['q_pass_ms']}, {row}")
    else:
        check(abs(record["q_pass_ms"] - expected_bwd_ms) < 1e-9, f"backward {key['mask']}: {record['q_pass_ms']}")
        check(abs(shown - expected_bwd_ms) < 1e-3, row)
        check(record["time_ms"]["median"] > record["q_pass_ms"], "the passes are part of the call's time")
print("kernel_passes: all checks passed")
