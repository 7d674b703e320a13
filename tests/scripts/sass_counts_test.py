#!/usr/bin/env python3
"""Tests of scripts/sass_counts.py on dumps in cuobjdump's and nvdisasm's formats (lines as our own binaries' dumps
print them), whole functions and their setmaxnreg regions."""
import os
import subprocess
import sys
import tempfile

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "sass_counts.py")
NAME = "_ZN4lcab7kernels5flash54_GLOBAL__N__{}_21_flash_forward_sm90_cu_3571765825flash_forward_sm90_kernelI13__nv_bfloat16Li64EEEvNS2_15Sm90ForwardArgsE"


def instruction(address, text):
    return f"        /*{address:04x}*/                   {text} ;        /* 0x000000000000000000 */\n"


def dump(hash_, sm90_body):
    """An sm_80 stub and an sm_90 body of the same function, as a fat binary's dump lists them."""
    text = "\n\tcode for sm_80\n\t\tFunction : " + NAME.format(hash_) + "\n"
    text += '\t.headerflags\t@"EF_CUDA_SM80 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM80)"\n'
    text += instruction(0, "MOV R1, c[0x0][0x28]") + instruction(16, "EXIT") + instruction(32, "BRA 0x20")
    text += "\nFatbin elf code:\n================\narch = sm_90a\n\n\tcode for sm_90a\n\t\tFunction : "
    text += NAME.format(hash_) + "\n"
    text += '\t.headerflags\t@"EF_CUDA_ACCELERATORS EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"\n'
    for n, op in enumerate(sm90_body):
        text += instruction(16 * n, op)
    return text


BASE = ["ULDC.64 UR4, c[0x0][0x118]", "UIADD3 UR10, UR27, UR7, URZ", "ULOP3.LUT UR11, UR11, 0x3fff0, URZ, 0xc0, !UPT",
        "USHF.R.U32.HI UR11, URZ, 0x4, UR11", "WARPGROUP.ARRIVE", "HGMMA.64x128x16.F32.BF16 R24, gdesc[UR20], RZ, !UPT",
        "@!P0 BRA 0xb1a0", "EXIT"]
NEW = ["ULDC.64 UR4, c[0x0][0x118]", "LOP3.LUT R25, R25, 0x3fff0, RZ, 0xc0, !PT", "R2UR UR10, R26", "R2UR UR11, R27",
       "BRA.DIV UR4, 0x10290", "WARPSYNC.ALL", "WARPGROUP.ARRIVE", "HGMMA.64x128x16.F32.BF16 R24, gdesc[UR8], RZ, !UPT",
       "@P1 R2UR UR8, R24", "HGMMA.64x128x16.F32.BF16 R24, gdesc[UR8], R24, gsb0", "EXIT"]


def check(condition, message):
    if not condition:
        print("FAILED:", message)
        sys.exit(1)


with tempfile.TemporaryDirectory() as d:
    paths = {}
    for name, hash_, body in (("base", "51f3732a", BASE), ("new", "63b9f6fd", NEW)):
        paths[name] = os.path.join(d, name + ".txt")
        with open(paths[name], "w") as f:
            f.write(dump(hash_, body))

    # Per function and architecture: instructions, HGMMA, R2UR (predicated too), uniform ALU ops (ULDC is a load, not
    # one of them), divergence checks.
    out = subprocess.run([sys.executable, SCRIPT, paths["new"]], capture_output=True, text=True)
    check(out.returncode == 0, out.stderr)
    rows = [line for line in out.stdout.splitlines() if line.startswith("| _Z")]
    check(len(rows) == 2, out.stdout)
    check("| sm_80 | 3 | 0 | 0 | 0 | 0 | 0 |" in rows[0], rows[0])
    check("| sm_90 | 11 | 2 | 3 | 0 | 1 | 1 |" in rows[1], rows[1])
    check("_GLOBAL__N__21_flash" in rows[1] and "63b9f6fd" not in rows[1], "anonymous namespace hash kept: " + rows[1])

    # Against a baseline built elsewhere (another anonymous-namespace hash): the same function, with the differences.
    out = subprocess.run([sys.executable, SCRIPT, paths["new"], "--baseline", paths["base"], "--match", "Li64E"],
                         capture_output=True, text=True)
    check(out.returncode == 0, out.stderr)
    sm90 = [line for line in out.stdout.splitlines() if "| sm_90 |" in line]
    check(len(sm90) == 1, out.stdout)
    check("| 8 -> 11 (+3) | 1 -> 2 (+1) | 0 -> 3 (+3) | 3 -> 0 (-3) | 0 -> 1 (+1) | 0 -> 1 (+1) |" in sm90[0], sm90[0])

    # From standard input, and a filter that matches nothing is an error.
    with open(paths["base"]) as f:
        out = subprocess.run([sys.executable, SCRIPT, "--match", "dkdv"], stdin=f, capture_output=True, text=True)
    check(out.returncode == 1 and "no function" in out.stderr, out.stdout + out.stderr)

# nvdisasm's format (scripts/disassemble.sh): the architecture once at the top, data sections before the code, each
# function a ".text.NAME:" label. With --regions, each USETMAXREG starts a region of its own (the instructions before
# the first count for the whole function only).
NVDISASM = (
    '\t.headerflags\t@"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"\n'
    '\t.elftype\t@"ET_EXEC"\n\n'
    "//--------------------- .debug_frame --------------------------\n.debug_frame:\n"
    "        /*0000*/ \t.byte\t0xff, 0xff, 0xff, 0xff, 0x24, 0x00, 0x00, 0x00\n"
    "//--------------------- .text." + NAME.format("63b9f6fd") + " --------------------------\n"
    ".text." + NAME.format("63b9f6fd") + ":\n"
    + "".join(instruction(16 * n, op) for n, op in enumerate([
        "ULDC.64 UR4, c[0x0][0x118]", "USETMAXREG.TRY_ALLOC.CTAPOOL UP0, 0xe8", "R2UR UR10, R26",
        "HGMMA.64x128x16.F32.BF16 R24, gdesc[UR8], RZ, !UPT", "EXIT", "USETMAXREG.DEALLOC.CTAPOOL 0x28",
        "R2UR UR4, R2", "@P0 R2UR UR5, R3", "EXIT"])))
with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "nvdisasm.sass")
    with open(path, "w") as f:
        f.write(NVDISASM)
    out = subprocess.run([sys.executable, SCRIPT, path, "--regions"], capture_output=True, text=True)
    check(out.returncode == 0, out.stderr)
    rows = [line for line in out.stdout.splitlines() if line.startswith("| _Z")]
    check(len(rows) == 3, out.stdout)
    check(rows[0].endswith("Sm90ForwardArgsE | sm_90 | 9 | 1 | 3 | 2 | 0 | 0 |"), rows[0])
    check(rows[1].endswith("Sm90ForwardArgsE @ TRY_ALLOC 0xe8 | sm_90 | 4 | 1 | 1 | 1 | 0 | 0 |"), rows[1])
    check(rows[2].endswith("Sm90ForwardArgsE @ DEALLOC 0x28 | sm_90 | 4 | 0 | 2 | 1 | 0 | 0 |"), rows[2])
    # Without --regions, the whole function alone.
    out = subprocess.run([sys.executable, SCRIPT, path], capture_output=True, text=True)
    rows = [line for line in out.stdout.splitlines() if line.startswith("| _Z")]
    check(len(rows) == 1 and rows[0].endswith("| sm_90 | 9 | 1 | 3 | 2 | 0 | 0 |"), out.stdout)
print("sass_counts: all checks passed")
