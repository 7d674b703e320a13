#!/usr/bin/env python3
"""lcab-predict kernel says what each prediction rests on: its profile entry fitted to measurements, or the
datasheet layer's.

On the built-in H200 profile, lcab_flash's hd 128 bf16 entries are fitted (a non-empty `fit`, from the committed
calibration), and lcab_flash_sm80's are the datasheet layer's (no calibration fits that path on the H200). The
table's "basis" column and the records' extra "basis" must both follow each entry's `fit` in the profile file the
built-in profile is compiled from.
"""
import json
import os
import subprocess
import sys

PREDICT = os.environ["LCAB_PREDICT"]
PROFILE = os.path.join(os.path.dirname(__file__), "..", "..", "data", "profiles", "h200_sxm.json")


def check(condition, message):
    if not condition:
        print("FAILED:", message)
        sys.exit(1)


ARGS = [PREDICT, "kernel", "--impl", "lcab_flash,lcab_flash_sm80", "--mask", "causal", "--seqlen", "16k",
        "--head-dim", "128", "--pass", "fwd,bwd", "--profile", "h200_sxm"]
table = subprocess.run(ARGS, capture_output=True, text=True)
check(table.returncode == 0, table.stderr)
json_out = subprocess.run(ARGS + ["--json", "-"], capture_output=True, text=True)
check(json_out.returncode == 0, json_out.stderr)
records = [json.loads(l) for l in json_out.stdout.splitlines() if l.startswith("{")]
lines = table.stdout.splitlines()
rows = [l for l in lines if l.startswith("| lcab_flash")]
check(len(records) == 4 and len(rows) == 4, table.stdout + json_out.stdout)
header = [c.strip() for c in next(l for l in lines if l.startswith("| impl")).split("|")]
column = header.index("basis")

profile = json.load(open(PROFILE))
seen = set()
for record, row in zip(records, rows):
    key = record["key"]
    entry = [k for k in profile["kernels"] if k["impl"] == key["impl"] and k["pass"] == key["pass"]
             and k["head_dim"] == key["head_dim"] and k["dtype"] == key["dtype"]][0]
    expected = "fitted" if entry["fit"] else "datasheet"
    shown = row.split("|")[column].strip()
    check(record["basis"] == expected and shown == expected,
          f"{key['impl']} {key['pass']}: record {record['basis']}, table {shown}, profile {expected}")
    seen.add((key["impl"], expected))
# Both kinds occur, so that a column stuck at one value fails.
check(seen == {("lcab_flash", "fitted"), ("lcab_flash_sm80", "datasheet")}, seen)
print("kernel_basis: all checks passed")
