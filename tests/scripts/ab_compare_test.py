#!/usr/bin/env python3
"""Tests of scripts/ab_compare.py on synthetic records."""
import json
import os
import subprocess
import sys
import tempfile

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "ab_compare.py")


def record(mask, tflops, status="ok", seqlen=32768, head_dim=128, clock=None):
    r = {"key": {"pass": "fwd", "head_dim": head_dim, "mask": mask, "seqlen": seqlen}, "tflops": tflops,
         "status": status}
    if clock is not None:
        r["sm_clock_mhz"] = {"median": clock, "p20": clock, "p80": clock}
    return r


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
# With SM clocks: per GHz alongside; new is 3.1% slower in TFLOP/s but ran at a 10% lower clock: 7.6% more per cycle.
clocked = run([record("swc", 500, clock=1800), record("swc", 520, clock=1800)],
              [record("swc", 484, clock=1620), record("swc", 504, clock=1620)])
check(clocked.returncode == 0, clocked.stderr)
lines = clocked.stdout.splitlines()
check(len(lines) == 3, clocked.stdout)
check("-3.1%" in lines[0] and "per GHz base  283.3  new  304.9   +7.6%" in lines[0], lines[0])
check(lines[1] == "geometric mean new/base: 0.9686", lines[1])
check(lines[2] == "geometric mean new/base per cycle: 1.0763 (1 of 1 groups)", lines[2])
gate = [[record("swc", 500, clock=1800)], [record("swc", 484, clock=1620)]]
check(run(*gate, "--require-not-slower").returncode == 1, "TFLOP/s gate: slower")
check(run(*gate, "--require-not-slower", "--per-cycle").returncode == 0, "per-cycle gate: faster per cycle")
# --per-cycle needs clocks in every group; a record without one leaves its group out of the per-cycle mean.
mixed = run([record("swc", 500, clock=1800), record("full", 600)], [record("swc", 500, clock=1800), record("full", 600)],
            "--per-cycle")
check(mixed.returncode == 2 and "lacks SM clocks" in mixed.stderr, mixed.stdout + mixed.stderr)
print("ab_compare: all checks passed")
