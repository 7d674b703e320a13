#!/usr/bin/env python3
"""Per-kernel instruction counts from `cuobjdump -sass` output: what to look at after changing a Hopper kernel.

    cuobjdump -sass BINARY_OR_OBJECT | scripts/sass_counts.py [--match REGEX] [--baseline OTHER.txt]
    scripts/sass_counts.py SASS.txt [--match REGEX] [--baseline OTHER.txt]

For every function of the dump and architecture it is compiled for (or those whose mangled name matches REGEX) prints its instructions, tensor-core
products (HGMMA), R2UR moves, uniform-datapath instructions (UIADD3, ULOP3, USHF, ULEA, UMOV, ...) and divergence
checks (BRA.DIV, WARPSYNC). The forward kernel's speed depends on ptxas keeping its consumer loop's state (stage
counters, shared memory bases, wgmma descriptors) in uniform registers: a build that loses it computes the
descriptors per thread and moves each with R2UR: such builds ran 4-13% slower
(data/measurements/h100/fwd-deferred-epilogue-2026-11-23/). With --baseline (another dump) each matched function is
printed next to the baseline's function of the same name, with the differences.
cuobjdump comes with the CUDA toolkit's full install (the GPU machines have it; the CPU machine's toolkit does not).
"""
import argparse
import re
import sys

FUNCTION = re.compile(r"^\s*Function : (\S+)")
HEADER = re.compile(r"\.headerflags.*EF_CUDA_SM(\d+)")  # each function's own header: the architecture it is for
ANONYMOUS = re.compile(r"_GLOBAL__N__[0-9a-f]+_")  # the per-build hash of an anonymous namespace
INSTRUCTION = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)")
UNIFORM = re.compile(r"^U(?!LDC)[A-Z0-9]")  # uniform-datapath ALU ops; ULDC (a constant load) is not one
COLUMNS = ("instructions", "HGMMA", "R2UR", "uniform", "BRA.DIV", "WARPSYNC")


def count(lines):
    """(function, sm_NN) -> counts, in the dump's order; anonymous namespaces' hashes left out of the names, so
    that two builds' functions compare."""
    functions = {}
    current = None
    name = None
    for line in lines:
        m = FUNCTION.match(line)
        if m:
            name, current = ANONYMOUS.sub("_GLOBAL__N__", m.group(1)), None
            continue
        m = HEADER.search(line)
        if m and name is not None:
            current = functions.setdefault((name, "sm_" + m.group(1)), dict.fromkeys(COLUMNS, 0))
            continue
        if current is None:
            continue
        m = INSTRUCTION.search(line)
        if not m:
            continue
        op = m.group(1)
        current["instructions"] += 1
        if op.startswith("HGMMA"):
            current["HGMMA"] += 1
        elif op == "R2UR":
            current["R2UR"] += 1
        elif op == "BRA.DIV":
            current["BRA.DIV"] += 1
        elif op.startswith("WARPSYNC"):
            current["WARPSYNC"] += 1
        elif UNIFORM.match(op):
            current["uniform"] += 1
    return functions


def read(path):
    if path == "-":
        return count(sys.stdin)
    with open(path) as f:
        return count(f)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dump", nargs="?", default="-", help="cuobjdump -sass output (default: standard input)")
    parser.add_argument("--match", default="", help="only functions whose mangled name matches this regex")
    parser.add_argument("--baseline", help="another dump: its functions of the same names, and the differences")
    args = parser.parse_args()
    functions = read(args.dump)
    baseline = read(args.baseline) if args.baseline else {}
    pattern = re.compile(args.match)
    shown = [(key, c) for key, c in functions.items() if pattern.search(key[0]) and c["instructions"] > 0]
    if not shown:
        print("no function with instructions matches", file=sys.stderr)
        return 1
    print("| function | arch | " + " | ".join(COLUMNS) + " |")
    print("|---|---|" + "---:|" * len(COLUMNS))
    for key, c in shown:
        b = baseline.get(key)
        cells = []
        for column in COLUMNS:
            cells.append(f"{b[column]} -> {c[column]} ({c[column] - b[column]:+d})" if b else str(c[column]))
        print(f"| {key[0]} | {key[1]} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
