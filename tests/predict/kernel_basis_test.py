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

from kernel_output import PROFILES, check, predict_kernel, profile_entry

records, rows, columns = predict_kernel(["--impl", "lcab_flash,lcab_flash_sm80", "--mask", "causal", "--seqlen", "16k",
                                         "--head-dim", "128", "--pass", "fwd,bwd", "--profile", "h200_sxm"], 4)
profile = json.load(open(os.path.join(PROFILES, "h200_sxm.json")))
seen = set()
for record, row in zip(records, rows):
    key = record["key"]
    expected = "fitted" if profile_entry(profile, key)["fit"] else "datasheet"
    shown = row[columns["basis"]]
    check(record["basis"] == expected and shown == expected,
          f"{key['impl']} {key['pass']}: record {record['basis']}, table {shown}, profile {expected}")
    seen.add((key["impl"], expected))
# Both kinds occur, so that a column stuck at one value fails.
check(seen == {("lcab_flash", "fitted"), ("lcab_flash_sm80", "datasheet")}, seen)
print("kernel_basis: all checks passed")
