#!/usr/bin/env python3
"""Where one kernel's warps stall, from Nsight Compute's per-instruction warp-state samples.

    scripts/ncu_stalls.py SOURCE.csv[.gz] [--baseline BASE.csv[.gz]] [--top N]

SOURCE is what `ncu --import REPORT.ncu-rep --page source --csv --print-source sass` writes for a launch profiled
with `--section SourceCounters --section WarpStateStats` (plain or gzip-compressed, read as the record files are by
scripts/record_files.py: NAME.csv reads NAME.csv.gz where only that is stored; the first line names the kernel,
the second is the header, then one row per SASS instruction). Samples are taken per warp at a fixed cycle interval
that ncu picks per launch, so two launches compare as shares of their own samples, never as sample counts.

Printed (markdown tables, shares in % of the launch's samples):
- the regions: runs of instructions ending at an EXIT or RET (a kernel's roles, an out-of-line function), each with
  its share;
- the stall reasons (`stall_*` columns, all samples) and the opcodes (the mnemonic before its first dot);
- with --baseline (a launch of the same binary's same kernel, so that row i is the same instruction in both): those
  shares side by side, then the N instructions whose share grew most and the N that shrank most, each with its two
  top stall reasons in SOURCE and its SASS.
"""
import argparse
import collections
import csv
import sys

from record_files import open_text

SAMPLES = "Warp Stall Sampling (All Samples)"


class Launch:
    """One launch's rows: per instruction its SASS, samples and per-reason samples."""

    def __init__(self, path):
        try:
            with open_text(path) as f:
                rows = list(csv.reader(f))
        except (OSError, UnicodeDecodeError, csv.Error) as error:
            raise SystemExit(f"ncu_stalls.py: {path}: {error}")
        if len(rows) < 2 or SAMPLES not in rows[1] or "Source" not in rows[1]:
            raise SystemExit(f"{path}: not an ncu --page source --csv export with warp stall samples "
                             f"(needs the columns 'Source' and '{SAMPLES}')")
        header = rows[1]
        self.kernel = rows[0][1] if len(rows[0]) > 1 else "?"
        source, samples = header.index("Source"), header.index(SAMPLES)
        reasons = [(j, name[len("stall_"):]) for j, name in enumerate(header)
                   if name.startswith("stall_") and "Not Issued" not in name]
        self.sass, self.samples, self.reasons = [], [], []
        for row in rows[2:]:
            if len(row) < len(header):
                continue
            self.sass.append(row[source].strip())
            self.samples.append(number(row[samples]))
            self.reasons.append({name: number(row[j]) for j, name in reasons})
        self.total = sum(self.samples) or 1

    def share(self, i):
        return 100.0 * self.samples[i] / self.total

    def regions(self):
        """[(first, last) instruction index], split after every EXIT or RET."""
        out, first = [], 0
        for i, sass in enumerate(self.sass):
            if opcode(sass) in ("EXIT", "RET"):
                out.append((first, i))
                first = i + 1
        if first < len(self.sass):
            out.append((first, len(self.sass) - 1))
        return out

    def by(self, key):
        """Share of the samples per key(i)."""
        totals = collections.Counter()
        for i in range(len(self.sass)):
            totals[key(i)] += self.samples[i]
        return {k: 100.0 * v / self.total for k, v in totals.items()}

    def reason_shares(self):
        totals = collections.Counter()
        for r in self.reasons:
            totals.update(r)
        return {k: 100.0 * v / self.total for k, v in totals.items()}

    def top_reasons(self, i, n=2):
        ranked = sorted(self.reasons[i].items(), key=lambda kv: -kv[1])
        return ", ".join(f"{name} {count}" for name, count in ranked[:n] if count > 0) or "-"


def number(text):
    text = text.replace(",", "").strip()
    try:
        return int(float(text)) if text not in ("", "-") else 0
    except ValueError:
        return 0


def opcode(sass):
    """`@!P0 BRA 0x10` -> `BRA`; `HGMMA.64x64x16.F32.BF16 R152, ...` -> `HGMMA`."""
    words = sass.split()
    if words and words[0].startswith("@"):
        words = words[1:]
    return words[0].split(".")[0] if words else "?"


def table(title, columns, rows, text_columns=1):
    """A markdown table: the first `text_columns` columns left-aligned, the rest numbers (right-aligned)."""
    print(f"\n{title}\n")
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * text_columns + "---:|" * (len(columns) - text_columns))
    for row in rows:
        print("| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |")


def shares_table(title, name, launches, shares, top):
    keys = sorted(set().union(*shares), key=lambda k: -shares[0].get(k, 0.0))[:top]
    rows = [[f"`{k}`"] + [f"{s.get(k, 0.0):.2f}" for s in shares] for k in keys]
    table(title, [name] + [f"% {label}" for label, _ in launches], rows)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("source", help="ncu --page source --csv export (.csv or .csv.gz)")
    parser.add_argument("--baseline", help="an export of another launch of the same kernel, to compare with")
    parser.add_argument("--top", type=int, default=15, help="rows per table (default 15)")
    args = parser.parse_args()
    launches = [("source", Launch(args.source))]
    if args.baseline:
        launches.insert(0, ("baseline", Launch(args.baseline)))
        if len(launches[0][1].sass) != len(launches[1][1].sass):
            raise SystemExit("ncu_stalls.py: the two exports list different instruction counts "
                             f"({len(launches[0][1].sass)} and {len(launches[1][1].sass)}): not the same kernel")
    for label, launch in launches:
        print(f"{label}: {launch.kernel}, {len(launch.sass)} instructions, {launch.total} samples")
    main_launch = launches[-1][1]
    regions = main_launch.regions()
    rows = []
    for first, last in regions:
        cells = [f"{first}-{last}", f"`{main_launch.sass[first][:48]}`"]
        cells += [f"{sum(l.share(i) for i in range(first, last + 1)):.2f}" for _, l in launches]
        rows.append(cells)
    table("Regions (instructions up to an EXIT or RET)", ["instructions", "first SASS"] +
          [f"% {label}" for label, _ in launches], rows, text_columns=2)
    shares_table("Stall reasons", "reason", launches, [l.reason_shares() for _, l in launches], args.top)
    shares_table("Opcodes", "opcode", launches, [l.by(lambda i, l=l: opcode(l.sass[i])) for _, l in launches],
                 args.top)
    if args.baseline:
        base, new = launches[0][1], launches[1][1]
        diff = sorted(range(len(new.sass)), key=lambda i: new.share(i) - base.share(i))
        for title, order in (("Grew most", diff[::-1][:args.top]), ("Shrank most", diff[:args.top])):
            rows = [[str(i), f"`{new.sass[i][:60]}`", new.top_reasons(i), f"{new.share(i) - base.share(i):+.2f}",
                     f"{base.share(i):.2f}", f"{new.share(i):.2f}"] for i in order]
            table(f"{title} (share of source minus share of baseline, points)",
                  ["instruction", "SASS", "top stalls (source)", "points", "% baseline", "% source"], rows,
                  text_columns=3)
    return 0


if __name__ == "__main__":
    sys.exit(main())
