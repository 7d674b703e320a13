#!/usr/bin/env python3
"""Per-kernel instruction counts from `cuobjdump -sass` or `nvdisasm` output: what to look at after changing a Hopper kernel.

    cuobjdump -sass BINARY_OR_OBJECT | scripts/sass_counts.py [--match REGEX] [--baseline OTHER.txt] [--regions]
    scripts/sass_counts.py SASS.txt [--match REGEX] [--baseline OTHER.txt] [--regions]

For every function of the dump and architecture it is compiled for (or those whose mangled name matches REGEX) prints its instructions, tensor-core
products (HGMMA), R2UR moves, uniform-datapath instructions (UIADD3, ULOP3, USHF, ULEA, UMOV, ...) and divergence
checks (BRA.DIV, WARPSYNC). The forward kernel's speed depends on ptxas keeping its consumer loop's state (stage
counters, shared memory bases, wgmma descriptors) in uniform registers: a build that loses it computes the
descriptors per thread and moves each with R2UR: such builds ran 4-13% slower
(data/measurements/h100/fwd-deferred-epilogue-2026-11-23/). With --baseline (another dump) each matched function is
printed next to the baseline's function of the same name, with the differences. With --regions each function is
also split where a USETMAXREG (setmaxnreg) instruction starts a warp-specialized role's code, one row per region
named by that instruction (in the Hopper kernels: the consumers after TRY_ALLOC, the producer after DEALLOC), so
that R2UR moves in the producer's code, which do not matter, are told from the consumers'.
cuobjdump comes with the CUDA toolkit's full install (the GPU machines have it; the CPU machine's toolkit does not);
on the CPU machine scripts/disassemble.sh prints a source file's or cubin's SASS in nvdisasm's format.
"""
import argparse
import re
import sys

FUNCTION = re.compile(r"^\s*Function : (\S+)")
NVDISASM_FUNCTION = re.compile(r"^\.text\.(\S+):\s*$")  # nvdisasm: a function's section label (no header of its own)
REGION = re.compile(r"USETMAXREG\.([A-Z_]+)\S*\s.*?(0x[0-9a-f]+)")
HEADER = re.compile(r"\.headerflags.*EF_CUDA_SM(\d+)")  # each function's own header: the architecture it is for
ANONYMOUS = re.compile(r"_GLOBAL__N__[0-9a-f]+_")  # the per-build hash of an anonymous namespace
INSTRUCTION = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)")
UNIFORM = re.compile(r"^U(?!LDC)[A-Z0-9]")  # uniform-datapath ALU ops; ULDC (a constant load) is not one
COLUMNS = ("instructions", "HGMMA", "R2UR", "uniform", "BRA.DIV", "WARPSYNC")


def count(lines, regions=False):
    """(function, sm_NN) -> counts, in the dump's order; anonymous namespaces' hashes left out of the names, so
    that two builds' functions compare. With regions, also (function + " @ REGION", sm_NN) for each part of a
    function that a USETMAXREG instruction starts."""
    functions = {}
    whole = current = None  # the function's counts, and its current region's (the same without regions)
    name = arch = None
    file_arch = None  # nvdisasm prints the architecture once, before the functions

    def start(function, architecture):
        nonlocal name, arch, whole, current
        name, arch = function, architecture
        whole = current = functions.setdefault((name, arch), dict.fromkeys(COLUMNS, 0))

    for line in lines:
        m = FUNCTION.match(line)
        if m:
            name, whole, current = ANONYMOUS.sub("_GLOBAL__N__", m.group(1)), None, None
            continue
        m = NVDISASM_FUNCTION.match(line)
        if m and file_arch is not None:
            start(ANONYMOUS.sub("_GLOBAL__N__", m.group(1)), file_arch)
            continue
        m = HEADER.search(line)
        if m:
            if name is not None:
                start(name, "sm_" + m.group(1))
            else:
                file_arch = "sm_" + m.group(1)
            continue
        if whole is None:
            continue
        m = INSTRUCTION.search(line)
        if not m:
            continue
        op = m.group(1)
        if regions:
            r = REGION.search(line)
            if r:
                current = functions.setdefault((f"{name} @ {r.group(1)} {r.group(2)}", arch), dict.fromkeys(COLUMNS, 0))
        for counts in (whole,) if current is whole else (whole, current):
            counts["instructions"] += 1
            if op.startswith("HGMMA"):
                counts["HGMMA"] += 1
            elif op == "R2UR":
                counts["R2UR"] += 1
            elif op == "BRA.DIV":
                counts["BRA.DIV"] += 1
            elif op.startswith("WARPSYNC"):
                counts["WARPSYNC"] += 1
            elif UNIFORM.match(op):
                counts["uniform"] += 1
    return functions


def read(path, regions):
    if path == "-":
        return count(sys.stdin, regions)
    with open(path) as f:
        return count(f, regions)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dump", nargs="?", default="-",
                        help="cuobjdump -sass or nvdisasm output (default: standard input)")
    parser.add_argument("--match", default="", help="only functions whose mangled name matches this regex")
    parser.add_argument("--baseline", help="another dump: its functions of the same names, and the differences")
    parser.add_argument("--regions", action="store_true",
                        help="also each function's parts as USETMAXREG (setmaxnreg) instructions start them")
    args = parser.parse_args()
    functions = read(args.dump, args.regions)
    baseline = read(args.baseline, args.regions) if args.baseline else {}
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
