#!/usr/bin/env python3
"""Per point, the error of one profile's prediction against that of two profiles each fitted to one of hd 64's two
backward kernels (records_by_backward_kernel.py), the one whose kernel ran the point (its CUPTI kernel name).

  compare_by_kernel.py RECORDS.jsonl JOINT.jsonl COUPLED.jsonl DECOUPLED.jsonl   (the last three: lcab-check --json)
"""
import json
import statistics
import sys


def predictions(path):
    return {json.dumps(r["key"], sort_keys=True): r["time_ms"]["median"] for r in map(json.loads, open(path))}


joint, coupled, decoupled = (predictions(p) for p in sys.argv[2:5])
errors = {"joint": [], "by kernel": []}
for r in map(json.loads, open(sys.argv[1])):
    if r["key"]["head_dim"] != 64:
        continue
    key, measured = json.dumps(r["key"], sort_keys=True), r["time_ms"]["median"]
    dec = "flash_dkdv_sm90_kernel<__nv_bfloat16, 64, false, true>" in " ".join(k["name"] for k in r["kernels"])
    e_joint = 100 * (joint[key] - measured) / measured
    e_kernel = 100 * ((decoupled if dec else coupled)[key] - measured) / measured
    errors["joint"].append(e_joint)
    errors["by kernel"].append(e_kernel)
    print(f"{'decoupled' if dec else 'coupled  '} {r['key']['mask']:<36} {r['key']['seqlen']:>6}  joint {e_joint:+6.2f}%"
          f"  by kernel {e_kernel:+6.2f}%")
for name, e in errors.items():
    a = sorted(map(abs, e))
    print(f"{name}: MAPE {statistics.mean(a):.2f} p90 {a[int(0.9 * (len(a) - 1))]:.2f} bias {statistics.mean(e):+.2f} "
          f"({len(e)} points)")
