#!/usr/bin/env python3
"""Kernel records rescaled to one SM clock, for fitting and checking the model in cycles.

Every measured record since 2026-11-24 carries the SM clock its repetitions ran at (`sm_clock_mhz`, median). A
kernel's work is a fixed number of cycles (time x clock is constant across power regimes; README, *Clocks*), so the
time it would take at MHZ is time x clock / MHZ. Each ok kernel record with a clock is written with time_ms (median,
p20, p80) and tflops rescaled and `at_sm_clock_mhz` set to MHZ; every other record is written unchanged and counted
on stderr. Inputs may be plain or gzip-compressed (record_files.py).

  python3 scripts/records_at_clock.py --mhz 1500 --out AT1500.jsonl FILES...
"""
import argparse
import json
import sys

from record_files import read_records


def at_clock(record, mhz):
    """The record rescaled to mhz, or None when it has no clock to rescale from."""
    clock = (record.get("sm_clock_mhz") or {}).get("median")
    if record.get("kind") != "kernel" or record.get("status") != "ok" or not clock or clock <= 0:
        return None
    factor = clock / mhz
    out = dict(record)
    out["time_ms"] = {name: value * factor for name, value in record["time_ms"].items()}
    if "tflops" in record:
        out["tflops"] = record["tflops"] / factor
    out["at_sm_clock_mhz"] = mhz
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--mhz", type=float, required=True, help="the SM clock to rescale to")
    parser.add_argument("--out", required=True, help="output JSON Lines file (overwritten)")
    args = parser.parse_args()
    if args.mhz <= 0:
        parser.error("--mhz must be positive")
    rescaled = unchanged = 0
    with open(args.out, "w") as out:
        for path in args.files:
            for _, record in read_records(path):
                scaled = at_clock(record, args.mhz)
                rescaled += scaled is not None
                unchanged += scaled is None
                out.write(json.dumps(scaled if scaled is not None else record) + "\n")
    print(f"records_at_clock: {rescaled} kernel records rescaled to {args.mhz:g} MHz, {unchanged} written unchanged",
          file=sys.stderr)


if __name__ == "__main__":
    main()
