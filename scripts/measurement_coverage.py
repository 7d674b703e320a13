#!/usr/bin/env python3
"""How much of a kernel campaign's grid the committed records cover, as a markdown table.

For every implementation x pass x shape (head dim, q/kv heads, dtype) found in the records, counts the points of the
grid MASKS x SEQLENS by status (ok, unsupported, oom, error) and those with no record at all. A record given later
(a later file, or later in a file) supersedes an earlier one of the same key, as in lcab-calibrate.

  python3 scripts/measurement_coverage.py data/measurements/h100/*.jsonl*   # plain and .jsonl.gz
  python3 scripts/measurement_coverage.py --seqlen 1k,2k,4k,8k,16k,32k,64k --missing FILES...
"""

import argparse
import collections
import json
import sys

from record_files import read_records

DEFAULT_MASKS = ("full,causal,full_document,causal_document,full_document_long,causal_document_long,sliding_window,"
                 "sliding_window_causal,global_sliding_window,share_question,causal_blockwise,prefix_lm_causal,"
                 "prefix_lm_document,block_causal_document,block_sparse,variable_block_sparse")
STATUSES = ("ok", "unsupported", "oom", "error")


def tokens(text):
    scale = {"k": 1024, "K": 1024, "M": 1 << 20}.get(text[-1:], 1)
    return int(text[:-1] if scale != 1 else text) * scale


def latest_records(paths):
    """key (as sorted JSON) -> the last kernel record of that key over the files in order."""
    latest = {}
    for path in paths:
        for _, record in read_records(path):
            if record.get("kind") == "kernel" and "key" in record:
                latest[json.dumps(record["key"], sort_keys=True)] = record
    return latest


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("files", nargs="+")
    p.add_argument("--mask", default=DEFAULT_MASKS, help="the grid's mask specs (default: every registered pattern)")
    p.add_argument("--seqlen", default="1k,2k,4k,8k,16k,32k,64k")
    p.add_argument("--missing", action="store_true", help="also list the grid points with no record")
    args = p.parse_args(argv)
    masks = args.mask.split(",")
    seqlens = [tokens(t) for t in args.seqlen.split(",")]
    grid = {(m, s) for m in masks for s in seqlens}

    cells = collections.defaultdict(dict)  # (impl, pass, shape) -> (mask, seqlen) -> status
    for record in latest_records(args.files).values():
        k = record["key"]
        point = (k.get("mask"), k.get("seqlen"))
        if point not in grid:
            continue
        shape = f"hd{k.get('head_dim')} {k.get('heads')}/{k.get('kv_heads')} {k.get('dtype')}"
        cells[(k.get("impl"), k.get("pass"), shape)][point] = record.get("status", "ok")

    print(f"Grid: {len(masks)} masks x {len(seqlens)} sequence lengths = {len(grid)} points per row.\n")
    print("| impl | pass | shape | " + " | ".join(STATUSES) + " | no record |")
    print("|---|---|---|" + "---:|" * (len(STATUSES) + 1))
    missing_lines = []
    for (impl, pass_, shape), points in sorted(cells.items()):
        counts = collections.Counter(points.values())
        absent = sorted(grid - set(points), key=lambda p: (masks.index(p[0]), p[1]))
        print(f"| {impl} | {pass_} | {shape} | " + " | ".join(str(counts.get(s, 0)) for s in STATUSES) +
              f" | {len(absent)} |")
        if absent:
            missing_lines.append(f"{impl} {pass_} {shape}: " + ", ".join(f"{m}@{s}" for m, s in absent))
    if args.missing and missing_lines:
        print("\nNo record:\n")
        for line in missing_lines:
            print(f"- {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
