"""Patches one defect into an ELF64 shared object's symbol lookup tables (tests/elf_hash_test.cc).

usage: patch_elf_tables.py FILE DEFECT [SYMBOL]
  no-buckets      GNU hash nbuckets = 0            bloom-3        GNU hash bloom_size = 3
  lying-chain     SYMBOL's chain hash flipped      endless-chain  every chain end bit cleared
  sysv-no-buckets DT_HASH nbucket = 0              verneednum-1   DT_VERNEEDNUM = 1
"""
import struct, sys

def sections(b):
    shoff, = struct.unpack_from("<Q", b, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", b, 0x3A)
    hdrs = [struct.unpack_from("<IIQQQQIIQQ", b, shoff + i * shentsize) for i in range(shnum)]
    stroff = hdrs[shstrndx][4]
    out = {}
    for h in hdrs:
        name = b[stroff + h[0]: b.index(b"\0", stroff + h[0])].decode()
        out[name] = h
    return out

def main(path, defect, symbol=""):
    b = bytearray(open(path, "rb").read())
    s = sections(b)
    if defect in ("no-buckets", "bloom-3", "lying-chain", "endless-chain"):
        off = s[".gnu.hash"][4]
        nb, symoff, bloom, shift = struct.unpack_from("<IIII", b, off)
        if defect == "no-buckets":
            struct.pack_into("<I", b, off, 0)
        elif defect == "bloom-3":
            struct.pack_into("<I", b, off + 8, 3)
        else:
            dynsym = s[".dynsym"]
            dynstr = s[".dynstr"][4]
            count = dynsym[5] // 24
            chain_at = off + 16 + bloom * 8 + nb * 4
            for i in range(symoff, count):
                at = chain_at + (i - symoff) * 4
                v, = struct.unpack_from("<I", b, at)
                if defect == "endless-chain":
                    struct.pack_into("<I", b, at, v & ~1)
                else:
                    name_off, = struct.unpack_from("<I", b, dynsym[4] + i * 24)
                    name = b[dynstr + name_off: b.index(b"\0", dynstr + name_off)].decode()
                    if name == symbol:
                        struct.pack_into("<I", b, at, v ^ 0x100)
    elif defect == "sysv-no-buckets":
        struct.pack_into("<I", b, s[".hash"][4], 0)
    elif defect == "verneednum-1":
        dyn = s[".dynamic"]
        for i in range(dyn[5] // 16):
            tag, val = struct.unpack_from("<qQ", b, dyn[4] + i * 16)
            if tag == 0x6fffffff:
                struct.pack_into("<qQ", b, dyn[4] + i * 16, tag, 1)
    open(path, "wb").write(bytes(b))

main(*sys.argv[1:])
