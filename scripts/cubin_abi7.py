#!/usr/bin/env python3
"""Rewrites a cubin's ELF header from the CUDA 13 toolkit's layout (ELF ABI version 8) to the older one (version 7),
so that an older nvdisasm can disassemble it: this machine's toolkit has no disassembler, and the one Debian ships
(CUDA 11.8, scripts/disassemble.sh) reads only the older header. Only the header changes; the code is the same
bytes.

    scripts/cubin_abi7.py IN.cubin OUT.cubin

The two layouts (e_flags, 32 bits at offset 48 of an ELF64 header):
  ABI 8: the architecture number in bits 8-15 (0x5a = sm_90), feature bits around it;
  ABI 7: the architecture in bits 0-7, the virtual architecture in bits 16-23, 0x400 for 64-bit addresses and
         0x100 for unified texture mode (what CUDA 11.8's own sm_90 cubins carry).
A cubin already in ABI 7 is copied unchanged.
"""
import struct
import sys

ELF_MAGIC = b"\x7fELF"
EI_CLASS_64 = 2
EI_ABIVERSION = 8
E_FLAGS_OFFSET = 48
EF_CUDA_64BIT_ADDRESS = 0x400
EF_CUDA_TEXMODE_UNIFIED = 0x100


def abi7_flags(flags_abi8):
    """The ABI 7 e_flags of the same architecture (sm_NN, virtual compute_NN, 64-bit addresses, unified textures)."""
    sm = (flags_abi8 >> 8) & 0xFF
    return sm | (sm << 16) | EF_CUDA_64BIT_ADDRESS | EF_CUDA_TEXMODE_UNIFIED


def convert(data):
    """The header rewritten (a new bytearray); raises ValueError for anything but an ELF64 cubin."""
    out = bytearray(data)
    if out[:4] != ELF_MAGIC or out[4] != EI_CLASS_64:
        raise ValueError("not an ELF64 file")
    if out[EI_ABIVERSION] == 7:
        return out
    if out[EI_ABIVERSION] != 8:
        raise ValueError(f"unknown CUDA ELF ABI version {out[EI_ABIVERSION]}")
    (flags,) = struct.unpack_from("<I", out, E_FLAGS_OFFSET)
    if ((flags >> 8) & 0xFF) == 0:
        raise ValueError(f"no architecture in e_flags {flags:#x}")
    out[EI_ABIVERSION] = 7
    struct.pack_into("<I", out, E_FLAGS_OFFSET, abi7_flags(flags))
    return out


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[1], "rb") as f:
        data = f.read()
    try:
        out = convert(data)
    except ValueError as e:
        print(f"{sys.argv[1]}: {e}", file=sys.stderr)
        return 1
    with open(sys.argv[2], "wb") as f:
        f.write(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
