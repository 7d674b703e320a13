#!/usr/bin/env python3
"""Side-by-side A/B of two kernel builds from the records they wrote (lcab-kernel-bench --json or lcab-measure).

    scripts/ab_compare.py BASE.jsonl NEW.jsonl [--require-not-slower] [--per-cycle]

Groups the `ok` records of each file by (pass, head dim, mask, sequence length), prints per group the mean TFLOP/s
of each side, the change in percent and every round's value (the rounds in file order), and last the geometric
mean of new / base over the groups that both sides measured. With --require-not-slower the exit status is 1 when
that geometric mean is below 1 (a device call can gate its follow-up runs on it), else 0.

Where every record of a group carries the SM clock it ran at (`sm_clock_mhz`, measure/sm_clock.h), the line also
gives TFLOP/s per GHz of SM clock and its change, and a last line the geometric mean of that: the kernels' work in
cycles, which does not move with the clock the board's power limit sets (the same kernel measures 10-15% apart in
two processes, and as many cycles). --per-cycle gates on that mean instead (it needs clocks in every group).
"""
import argparse
import json
import math
import statistics
import sys

from record_files import read_records


def tflops_by_group(path):
    """(pass, head_dim, mask, seqlen) -> [(TFLOP/s, SM clock in MHz or None)] of the ok records, in file order."""
    groups = {}
    for _, record in read_records(path):
        if record.get("status") != "ok":
            continue
        key = record["key"]
        group = (key["pass"], key["head_dim"], key["mask"], key["seqlen"])
        clock = (record.get("sm_clock_mhz") or {}).get("median")
        groups.setdefault(group, []).append((record["tflops"], clock))
    return groups


def per_ghz(samples):
    """Mean TFLOP/s per GHz of SM clock, or None when a sample has no clock."""
    if any(clock is None or clock <= 0 for _, clock in samples):
        return None
    return statistics.mean(tflops / clock * 1e3 for tflops, clock in samples)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base")
    parser.add_argument("new")
    parser.add_argument("--require-not-slower", action="store_true")
    parser.add_argument("--per-cycle", action="store_true", help="gate on TFLOP/s per GHz of SM clock")
    args = parser.parse_args(argv)
    base, new = tflops_by_group(args.base), tflops_by_group(args.new)
    logs, cycle_logs = [], []
    groups = sorted(set(base) & set(new))
    for group in groups:
        b = statistics.mean(t for t, _ in base[group])
        n = statistics.mean(t for t, _ in new[group])
        logs.append(math.log(n / b))
        rounds_b = [round(t) for t, _ in base[group]]
        rounds_n = [round(t) for t, _ in new[group]]
        line = (f"{group[0]} hd{group[1]} {group[2]:24s} {group[3]:6d}  base {b:6.1f}  new {n:6.1f}  "
                f"{100 * (n / b - 1):+5.1f}%  rounds {rounds_b} {rounds_n}")
        bc, nc = per_ghz(base[group]), per_ghz(new[group])
        if bc is not None and nc is not None:
            cycle_logs.append(math.log(nc / bc))
            line += f"  | per GHz base {bc:6.1f}  new {nc:6.1f}  {100 * (nc / bc - 1):+5.1f}%"
        print(line)
    if not logs:
        print("no group measured by both sides", file=sys.stderr)
        return 2
    ratio = math.exp(sum(logs) / len(logs))
    print(f"geometric mean new/base: {ratio:.4f}")
    if cycle_logs:
        cycle_ratio = math.exp(sum(cycle_logs) / len(cycle_logs))
        print(f"geometric mean new/base per cycle: {cycle_ratio:.4f} ({len(cycle_logs)} of {len(groups)} groups)")
    if args.per_cycle:
        if len(cycle_logs) != len(groups):
            print("--per-cycle: a group lacks SM clocks (sm_clock_mhz)", file=sys.stderr)
            return 2
        ratio = cycle_ratio
    return 1 if args.require_not_slower and ratio < 1.0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
