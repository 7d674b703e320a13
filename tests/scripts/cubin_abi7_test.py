#!/usr/bin/env python3
"""Tests of scripts/cubin_abi7.py (a cubin's ELF header rewritten for an older nvdisasm) on synthetic headers."""
import os
import struct
import subprocess
import sys
import tempfile

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "cubin_abi7.py")


def check(condition, message):
    if not condition:
        print("FAILED:", message)
        sys.exit(1)


def header(abi, flags, tail=b"code bytes stay as they are"):
    """An ELF64 little-endian header (64 bytes) with the given EI_ABIVERSION and e_flags, then some bytes."""
    ident = b"\x7fELF" + bytes([2, 1, 1, 0x41, abi]) + bytes(7)
    rest = bytearray(48)
    struct.pack_into("<I", rest, 48 - 16, flags)  # e_flags at offset 48 of the file
    return ident + bytes(rest) + tail


def run(data):
    with tempfile.TemporaryDirectory() as d:
        src, dst = os.path.join(d, "in.cubin"), os.path.join(d, "out.cubin")
        with open(src, "wb") as f:
            f.write(data)
        out = subprocess.run([sys.executable, SCRIPT, src, dst], capture_output=True, text=True)
        result = open(dst, "rb").read() if out.returncode == 0 else None
        return out.returncode, result, out.stderr


# CUDA 13's sm_90a header (ABI 8, flags 0x6005a04, as nvcc writes them): ABI 7 with sm_90 and compute_90, 64-bit
# addresses and unified textures; every other byte unchanged.
original = header(8, 0x6005A04)
rc, out, err = run(original)
check(rc == 0, err)
check(out[8] == 7, f"ABI version {out[8]}")
check(struct.unpack_from("<I", out, 48)[0] == 0x5A055A, f"e_flags {struct.unpack_from('<I', out, 48)[0]:#x}")
check(out[:8] == original[:8] and out[9:48] == original[9:48] and out[52:] == original[52:], "other bytes changed")

# sm_80 the same way; an ABI 7 cubin is copied unchanged.
rc, out, _ = run(header(8, 0x5004))
check(rc == 0 and struct.unpack_from("<I", out, 48)[0] == 0x500550, "sm_80")
old = header(7, 0x5A055A)
rc, out, _ = run(old)
check(rc == 0 and out == old, "ABI 7 input changed")

# Not a cubin, an unknown ABI, or no architecture: an error, no output.
for data, what in ((b"not an elf file at all" * 4, "not an ELF64"), (header(9, 0x5A00), "unknown CUDA ELF ABI"),
                   (header(8, 0x4), "no architecture")):
    rc, out, err = run(data)
    check(rc == 1 and out is None and what in err, f"{what}: rc {rc}, {err}")
print("cubin_abi7: all checks passed")
