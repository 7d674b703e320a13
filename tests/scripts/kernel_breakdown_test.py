#!/usr/bin/env python3
"""Tests of scripts/kernel_breakdown.py on synthetic records."""
import json
import os
import subprocess
import sys
import tempfile

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "kernel_breakdown.py")


def record(mask, time_ms, kernels, flops=1e12, status="ok", impl="lcab_flash", pass_="bwd"):
    key = {"impl": impl, "pass": pass_, "mask": mask, "seqlen": 32768, "head_dim": 128, "heads": 64, "kv_heads": 8,
           "batch": 1, "dtype": "bf16"}
    return {"kind": "kernel", "key": key, "status": status, "flops": flops, "tflops": flops / time_ms / 1e9,
            "time_ms": {"median": time_ms}, "kernels": [{"name": n, "median_ms": ms} for n, ms in kernels]}


def run(records, *flags):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "r.jsonl")
        with open(path, "w") as f:
            f.write("".join(json.dumps(r) + "\n" for r in records))
        return subprocess.run([sys.executable, SCRIPT, path, *flags], capture_output=True, text=True)


def check(condition, message):
    if not condition:
        print("FAILED:", message)
        sys.exit(1)


main = "void lcab::kernels::flash::(anonymous namespace)::flash_dkdv_sm90_kernel<__nv_bfloat16, 128>(Args)"
pre = "void lcab::kernels::flash::(anonymous namespace)::delta_kernel<__nv_bfloat16, 128>(Params)"
records = [
    record("full", 10.0, [(pre, 0.5), (main, 9.0)], flops=5e12),          # call 500, kernel alone 555.6 TFLOP/s
    record("window", 2.0, [(pre, 0.5), (main, 1.25)], flops=0.5e12),      # call 250, kernel alone 400
    record("window", 4.0, [(pre, 0.5), (main, 3.0)], flops=0.5e12),       # superseded by the next of the same key
    record("window", 2.0, [(pre, 0.5), (main, 1.25)], flops=0.5e12),
    record("causal", 1.0, [(main, 1.0)], status="oom"),                  # not ok: left out
    record("full", 1.0, [(main, 1.0)], impl="cudnn"),                    # another implementation
]
out = run(records, "--impl", "lcab_flash", "--reference", "full")
check(out.returncode == 0, out.stderr)
rows = [l for l in out.stdout.splitlines() if l.startswith("| lcab_flash")]
check(len(rows) == 2, out.stdout)
full, window = rows
check("| full | 32768 | 128 | 10.000 | 500 | delta_kernel 0.500, flash_dkdv_sm90_kernel 9.000 | 556 | 1.000 |" in full,
      full)
check("100.0% / 100.0%" in full, full)
check("| window | 32768 | 128 | 2.000 | 250 | delta_kernel 0.500, flash_dkdv_sm90_kernel 1.250 | 400 | 0.750 |" in window,
      window)
check("50.0% / 72.0%" in window, window)  # 250 / 500 and 400 / 555.6
check("cudnn" not in out.stdout and "causal" not in out.stdout, out.stdout)
# No reference record of the same shape: a dash; nothing to show: an error.
out = run(records, "--impl", "lcab_flash", "--reference", "causal")
check(out.returncode == 0 and out.stdout.count(" - |") == 2, out.stdout)
check(run(records, "--pass", "fwd").returncode == 2, "no fwd records")
print("kernel_breakdown: all checks passed")
