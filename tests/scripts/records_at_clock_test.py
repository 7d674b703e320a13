#!/usr/bin/env python3
"""Tests of scripts/records_at_clock.py: an ok kernel record with a clock is rescaled to the asked clock (time x
clock / MHz, TFLOP/s inversely), every other record passes unchanged."""
import json
import os
import subprocess
import sys
import tempfile

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "records_at_clock.py")


def fail(message):
    print("FAILED:", message)
    sys.exit(1)


def main():
    timed = {"kind": "kernel", "status": "ok", "key": {"mask": "full"},
             "time_ms": {"median": 2.0, "p20": 1.8, "p80": 2.2}, "tflops": 300.0,
             "sm_clock_mhz": {"median": 1800.0, "p20": 1790.0, "p80": 1810.0}}
    no_clock = {"kind": "kernel", "status": "ok", "key": {"mask": "causal"}, "time_ms": {"median": 1.0}, "tflops": 10.0}
    failed = {"kind": "kernel", "status": "oom", "key": {"mask": "full"}, "sm_clock_mhz": {"median": 1800.0}}
    cp = {"kind": "cp", "status": "ok", "time_ms": {"median": 5.0}, "sm_clock_mhz": {"median": 1800.0}}
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "in.jsonl")
        with open(src, "w") as f:
            f.write("".join(json.dumps(r) + "\n" for r in (timed, no_clock, failed, cp)))
        out = os.path.join(d, "out.jsonl")
        run = subprocess.run([sys.executable, SCRIPT, "--mhz", "1500", "--out", out, src], capture_output=True, text=True)
        if run.returncode != 0:
            fail(run.stderr)
        records = [json.loads(line) for line in open(out)]
        if len(records) != 4:
            fail(f"{len(records)} records written")
        first = records[0]
        if abs(first["time_ms"]["median"] - 2.4) > 1e-9 or abs(first["time_ms"]["p20"] - 2.16) > 1e-9:
            fail(f"time not rescaled by 1800 / 1500: {first['time_ms']}")
        if abs(first["tflops"] - 250.0) > 1e-9 or first.get("at_sm_clock_mhz") != 1500:
            fail(f"tflops or at_sm_clock_mhz wrong: {first}")
        if records[1:] != [no_clock, failed, cp]:
            fail(f"records without a clock, failed or not kernels changed: {records[1:]}")
        if "1 kernel records rescaled" not in run.stderr or "3 written unchanged" not in run.stderr:
            fail(f"counts: {run.stderr}")
        bad = subprocess.run([sys.executable, SCRIPT, "--mhz", "0", "--out", out, src], capture_output=True, text=True)
        if bad.returncode == 0:
            fail("--mhz 0 accepted")
    print("records_at_clock: all checks passed")


if __name__ == "__main__":
    main()
