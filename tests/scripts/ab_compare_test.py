#!/usr/bin/env python3
"""Tests of scripts/ab_compare.py on synthetic records."""
import json
import os
import subprocess
import sys
import tempfile

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "ab_compare.py")


def record(mask, tflops, status="ok", seqlen=32768, head_dim=128):
    return {"key": {"pass": "fwd", "head_dim": head_dim, "mask": mask, "seqlen": seqlen}, "tflops": tflops,
            "status": status}


def run(base, new, *flags):
    with tempfile.TemporaryDirectory() as d:
        paths = []
        for name, records in (("base", base), ("new", new)):
            path = os.path.join(d, name + ".jsonl")
            with open(path, "w") as f:
                f.write("".join(json.dumps(r) + "\n" for r in records))
            paths.append(path)
        return subprocess.run([sys.executable, SCRIPT, *paths, *flags], capture_output=True, text=True)


def check(condition, message):
    if not condition:
        print("FAILED:", message)
        sys.exit(1)


# Means per group, the change, the rounds in file order; a failed record is left out; the geometric mean.
out = run([record("causal", 100), record("causal", 110), record("full", 200), record("full", 1, "oom")],
          [record("causal", 126), record("full", 180)])
check(out.returncode == 0, out.stderr)
lines = out.stdout.splitlines()
check(len(lines) == 3, out.stdout)
check("causal" in lines[0] and "base  105.0" in lines[0] and "new  126.0" in lines[0] and "+20.0%" in lines[0]
      and "[100, 110] [126]" in lines[0], lines[0])
check("full" in lines[1] and "base  200.0" in lines[1] and "-10.0%" in lines[1] and "[200] [180]" in lines[1],
      lines[1])
check(lines[2] == "geometric mean new/base: 1.0392", lines[2])  # sqrt(1.2 x 0.9)
# The gate: slower on the geometric mean fails with --require-not-slower only.
slower = run([record("causal", 100)], [record("causal", 99)])
check(slower.returncode == 0, "no gate asked")
check(run([record("causal", 100)], [record("causal", 99)], "--require-not-slower").returncode == 1, "gate")
check(run([record("causal", 100)], [record("causal", 100)], "--require-not-slower").returncode == 0, "equal")
# Groups measured by one side only are not compared; none in common is an error.
check(run([record("causal", 100)], [record("full", 100)]).returncode == 2, "no common group")
print("ab_compare: all checks passed")
