#!/usr/bin/env python3
"""The lcab_flash backward records a profile was fitted to (its provenance.inputs, the newest record of each key, as
lcab-calibrate takes them), of one head dim, split by the dK/dV kernel that ran: hd 64's slice-walking backward has a
coupled and a decoupled instantiation (kernels/flash_work.h backward_warpgroups_decoupled; the fourth template
argument of flash_dkdv_sm90_kernel in the records' CUPTI kernel names).

  records_by_backward_kernel.py PROFILE.json HEAD_DIM OUT_PREFIX   -> OUT_PREFIX-coupled.jsonl, OUT_PREFIX-decoupled.jsonl
"""
import gzip
import json
import sys

profile, head_dim, prefix = json.load(open(sys.argv[1])), int(sys.argv[2]), sys.argv[3]
newest = {}
for path in profile["provenance"]["inputs"]:
    with (gzip.open if path.endswith(".gz") else open)(path, "rt") as f:
        for line in f:
            r = json.loads(line)
            k = r.get("key", {})
            if r.get("kind") != "kernel" or r.get("status") != "ok" or k.get("impl") != "lcab_flash":
                continue
            if k.get("pass") != "bwd" or k.get("head_dim") != head_dim:
                continue
            key = json.dumps(k, sort_keys=True)
            if key not in newest or r["meta"]["time"] >= newest[key][0]["meta"]["time"]:
                newest[key] = (r, line if line.endswith("\n") else line + "\n")
out = {name: open(f"{prefix}-{name}.jsonl", "w") for name in ("coupled", "decoupled")}
counts = {"coupled": 0, "decoupled": 0}
for r, line in newest.values():
    names = " ".join(k["name"] for k in r.get("kernels", []))
    kind = "decoupled" if f"flash_dkdv_sm90_kernel<__nv_bfloat16, {head_dim}, false, true>" in names else "coupled"
    out[kind].write(line)
    counts[kind] += 1
print(counts)
