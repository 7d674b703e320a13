#!/usr/bin/env python3
"""Side-by-side A/B of two kernel builds from the records they wrote (lcab-kernel-bench --json or lcab-measure).

    scripts/ab_compare.py BASE.jsonl NEW.jsonl [--require-not-slower]

Groups the `ok` records of each file by (pass, head dim, mask, sequence length), prints per group the mean TFLOP/s
of each side, the change in percent and every round's value (the rounds in file order), and last the geometric
mean of new / base over the groups that both sides measured. With --require-not-slower the exit status is 1 when
that geometric mean is below 1 (a device call can gate its follow-up runs on it), else 0.
"""
import argparse
import json
import math
import statistics
import sys


def tflops_by_group(path):
    groups = {}
    with open(path) as f:
        for line in f:
            if not line.strip():
                continue
            record = json.loads(line)
            if record.get("status") != "ok":
                continue
            key = record["key"]
            group = (key["pass"], key["head_dim"], key["mask"], key["seqlen"])
            groups.setdefault(group, []).append(record["tflops"])
    return groups


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base")
    parser.add_argument("new")
    parser.add_argument("--require-not-slower", action="store_true")
    args = parser.parse_args(argv)
    base, new = tflops_by_group(args.base), tflops_by_group(args.new)
    logs = []
    for group in sorted(set(base) & set(new)):
        b, n = statistics.mean(base[group]), statistics.mean(new[group])
        logs.append(math.log(n / b))
        rounds_b = [round(x) for x in base[group]]
        rounds_n = [round(x) for x in new[group]]
        print(f"{group[0]} hd{group[1]} {group[2]:24s} {group[3]:6d}  base {b:6.1f}  new {n:6.1f}  "
              f"{100 * (n / b - 1):+5.1f}%  rounds {rounds_b} {rounds_n}")
    if not logs:
        print("no group measured by both sides", file=sys.stderr)
        return 2
    ratio = math.exp(sum(logs) / len(logs))
    print(f"geometric mean new/base: {ratio:.4f}")
    return 1 if args.require_not_slower and ratio < 1.0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
