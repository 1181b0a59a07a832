#!/usr/bin/env python3
"""Small inputs built to cost much: one per class of issue 28's resource attacks, each scaled by N,
for the tests (a finding or a clean verdict, never a crash) and bench/hostile.sh (time and peak
RSS against N must grow linearly).

  hostile_inputs.py CLASS N OUT_DIR [--raw]   prints the path written (--raw: the binary alone,
                                               not in a wheel)

Classes (all wheels but `glob`, which writes a policy, and `toml`, a pyproject.toml):
  verneed   an ELF whose N Elf_Verneed records all share one chain of N Elf_Vernaux records
  dynsym    an ELF whose N undefined .dynsym entries all name one 8 MiB string
  dynsuffix the same, each entry naming the next suffix of that string (distinct names)
  pe        a PE whose 4,095 import descriptors for python3.dll share one table of N names
  macho     a Mach-O whose N undefined nlist entries all name one 8 MiB string
  mangled   an ELF whose .dynstr holds one mangled name of N nested source names
  fatbin    a bare fatbin file of N entries in one container
  glob      a policy forbidding N times '**a' then '**b' (and a wheel of a long name to match)
  paths     N empty modules, each 490 directories deep in a directory of its own (1,000-byte paths)
  toml      a pyproject.toml of N nested tables (a [tool.wheelcheck] after them)
  json      a policy whose JSON nests N arrays deep
Issue 49's classes (the parsers added last):
  evidence  a CycloneDX SBOM whose one component lists N evidence occurrences
  spdxids   an SPDX 2.3 SBOM of N files sharing one SPDXID, each CONTAINed by the package
  spdxchain an SPDX 2.3 SBOM of N packages, each DEPENDS_ON the next (one long chain)
  attest    a wheel and its .provenance holding N attestations in one bundle (N bytes x3)
  extends   a policy diamond of N levels (each level extends two files that both extend the next)
"""
import base64, hashlib, json, os, struct, sys, zipfile


def record_row(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


RAW = "--raw" in sys.argv


def wheel(out_dir, tag, files, name="hostile"):
    """A wheel holding `files` ({path: bytes}) with a correct RECORD (with --raw: the one file)."""
    if RAW:
        (path, data), = files.items()
        out = os.path.join(out_dir, os.path.basename(path))
        with open(out, "wb") as f:
            f.write(data)
        return out
    path = os.path.join(out_dir, f"{name}-1.0-{tag}.whl")
    di = f"{name}-1.0.dist-info"
    rows = []
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        def add(n, data):
            z.writestr(n, data)
            rows.append(record_row(n, data))
        for n, data in files.items():
            add(n, data)
        add(di + "/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n".encode())
        add(di + "/WHEEL", f"Wheel-Version: 1.0\nGenerator: hostile\nRoot-Is-Purelib: false\nTag: {tag}\n".encode())
        rows.append(di + "/RECORD,,")
        z.writestr(di + "/RECORD", "\n".join(rows) + "\n")
    return path


def elf(dynstr, dynamic_extra, tail, tail_tags):
    """A 64-bit little-endian shared object: header, PT_LOAD over the file, PT_DYNAMIC, .dynstr,
    .dynamic, then `tail` (records the dynamic entries point into). `dynamic_extra` are (tag, value)
    pairs; `tail_tags` are (tag, offset within tail) pairs made absolute here. Addresses equal
    file offsets."""
    ehsize, phsize = 64, 56
    dynstr_off = ehsize + 2 * phsize
    dyn_off = (dynstr_off + len(dynstr) + 7) & ~7
    tags = [(1, 1), (5, dynstr_off), (10, len(dynstr))] + list(dynamic_extra)
    ndyn = len(tags) + len(tail_tags) + 1
    tail_off = dyn_off + 16 * ndyn
    tags += [(t, tail_off + o) for t, o in tail_tags] + [(0, 0)]
    total = tail_off + len(tail)
    f = bytearray(b"\x7fELF\x02\x01\x01" + b"\0" * 9)
    f += struct.pack("<HHIQQQIHHHHHH", 3, 62, 1, 0, ehsize, 0, 0, ehsize, phsize, 2, 64, 0, 0)
    f += struct.pack("<IIQQQQQQ", 1, 5, 0, 0, 0, total, total, 0x1000)
    f += struct.pack("<IIQQQQQQ", 2, 6, dyn_off, dyn_off, dyn_off, 16 * ndyn, 16 * ndyn, 8)
    f += dynstr
    f += b"\0" * (dyn_off - len(f))
    for t, v in tags:
        f += struct.pack("<qQ", t, v)
    f += tail
    return bytes(f)


BASE_STR = b"\0libc.so.6\0GLIBC_2.2.5\0"


def elf_verneed(n):
    libc, ver = 1, BASE_STR.index(b"GLIBC")
    needs = bytearray()
    for i in range(n):  # each points at the shared chain after all the needs
        aux = 16 * (n - i)
        needs += struct.pack("<HHIII", 1, 0xFFFF, libc, aux, 16 if i + 1 < n else 0)
    chain = bytearray()
    for i in range(n):
        chain += struct.pack("<IHHII", 0x09691A75, 0, 2 + (i & 0x7FFF), ver, 16 if i + 1 < n else 0)
    return elf(BASE_STR, [(0x6FFFFFFF, n)], bytes(needs + chain), [(0x6FFFFFFE, 0)])


def elf_dynsym(n, suffixes):
    big = b"x" * (8 << 20)
    dynstr = BASE_STR + big + b"\0"
    at = len(BASE_STR)
    syms = bytearray(b"\0" * 24)
    for i in range(n):
        name = at + (i if suffixes else 0)
        syms += struct.pack("<IBBHQQ", name, 0x12, 0, 0, 0, 0)  # GLOBAL FUNC, undefined
    hash_ = struct.pack("<II", 1, n + 1) + b"\0" * 4 * (n + 2)
    tail = bytes(syms) + hash_
    return elf(dynstr, [(11, 24)], tail, [(6, 0), (4, len(syms))])


def elf_mangled(n):
    # Each "N6nDDDDDE" opens a nested name whose first component is a new namespace.
    name = b"_Z" + b"".join(b"N6n%05dE" % (i % 100000) for i in range(n)) + b"Ss"
    return elf(BASE_STR + name + b"\0", [], b"", [])


def pe_shared_thunks(n):
    """PE32+ whose 4,095 descriptors name python3.dll and share one lookup table of n names."""
    descs = 4095
    sect_rva, sect_raw = 0x1000, 0x200
    dll_at = 20 * (descs + 1)
    table_at = (dll_at + 16 + 7) & ~7
    names_at = table_at + 8 * (n + 1)
    idata = bytearray(names_at + 16)
    idata[dll_at:dll_at + 12] = b"python3.dll\0"
    idata[names_at + 2:names_at + 2 + 14] = b"Py_Initialize\0"
    for i in range(n):
        struct.pack_into("<Q", idata, table_at + 8 * i, sect_rva + names_at)
    for d in range(descs):
        struct.pack_into("<IIIII", idata, 20 * d, sect_rva + table_at, 0, 0, sect_rva + dll_at, sect_rva + table_at)
    size = len(idata)
    p = bytearray(b"MZ" + b"\0" * (0x3C - 2) + struct.pack("<I", 0x80) + b"\0" * (0x80 - 0x40))
    p += b"PE\0\0" + struct.pack("<HHIIIHH", 0x8664, 1, 0, 0, 0, 240, 0x2022)
    opt = len(p)
    p += struct.pack("<H", 0x20B) + b"\0" * 106 + struct.pack("<I", 16)
    p += struct.pack("<IIII", 0, 0, sect_rva, 20 * (descs + 1))
    p += b"\0" * (240 - (len(p) - opt))
    p += b".idata\0\0" + struct.pack("<IIII", size, sect_rva, size, sect_raw) + b"\0" * 16
    p += b"\0" * (sect_raw - len(p))
    return bytes(p + idata)


def macho_symbols(n):
    """Thin 64-bit x86_64 Mach-O: LC_SYMTAB with n undefined external nlist entries all naming one
    8 MiB string, LC_DYSYMTAB saying they are all undefined."""
    big = b"\0_" + b"y" * (8 << 20) + b"\0"
    ncmds, sizeofcmds = 2, 24 + 80
    header = struct.pack("<IiiIIIII", 0xFEEDFACF, 0x01000007, 3, 6, ncmds, sizeofcmds, 0, 0)
    symoff = 32 + sizeofcmds
    stroff = symoff + 16 * n
    symtab = struct.pack("<IIIIII", 0x2, 24, symoff, n, stroff, len(big))
    dysymtab = struct.pack("<II", 0xB, 80) + struct.pack("<18I", 0, 0, 0, 0, 0, n, *([0] * 12))
    syms = b"".join(struct.pack("<IBBHQ", 1, 0x01, 0, 0, 0) for _ in range(n))
    return header + symtab + dysymtab + syms + big


def fatbin(n):
    """One container of n SASS entries (sm_90, 16-byte payloads), laid out as nvcc writes them."""
    h = bytearray(64)
    struct.pack_into("<HHIQ", h, 0, 2, 0x0101, 64, 16)
    struct.pack_into("<HHI", h, 24, 8, 1, 90)
    struct.pack_into("<Q", h, 40, 0x11)
    entries = (bytes(h) + b"\0" * 16) * n
    return struct.pack("<IHHQ", 0xBA55ED50, 1, 16, len(entries)) + entries


def sbom_wheel(out, name, doc):
    return wheel(out, "py3-none-any", {"hostile/__init__.py": b"",
                                       f"hostile-1.0.dist-info/sboms/{name}": json.dumps(doc).encode()})


def spdx(packages, files, relationships):
    return {"spdxVersion": "SPDX-2.3", "SPDXID": "SPDXRef-DOCUMENT", "name": "h", "dataLicense": "CC0-1.0",
            "documentNamespace": "https://example.org/h", "documentDescribes": ["SPDXRef-p"],
            "creationInfo": {"created": "2026-01-01T00:00:00Z", "creators": ["Tool: hostile"]},
            "packages": [{"SPDXID": "SPDXRef-p", "name": "hostile", "versionInfo": "1.0",
                          "downloadLocation": "NONE"}] + packages,
            "files": files, "relationships": relationships}


def main():
    kind, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    os.makedirs(out, exist_ok=True)
    linux = "cp312-cp312-manylinux_2_17_x86_64"
    if kind == "verneed":
        path = wheel(out, linux, {"hostile/_v.so": elf_verneed(n)})
    elif kind in ("dynsym", "dynsuffix"):
        path = wheel(out, linux, {"hostile/_d.so": elf_dynsym(n, kind == "dynsuffix")})
    elif kind == "mangled":
        path = wheel(out, linux, {"hostile/_m.so": elf_mangled(n)})
    elif kind == "pe":
        path = wheel(out, "cp312-cp312-win_amd64", {"hostile/_p.pyd": pe_shared_thunks(n)})
    elif kind == "macho":
        path = wheel(out, "cp312-cp312-macosx_11_0_x86_64", {"hostile/_o.so": macho_symbols(n)})
    elif kind == "fatbin":
        path = wheel(out, linux, {"hostile/kernels.fatbin": fatbin(n)})
    elif kind == "paths":
        deep = "a/" * 490  # 980 bytes under a directory of each file's own: under the 1,024-byte limit
        path = wheel(out, "py3-none-any", {f"hostile/{i:x}/{deep}m.py": b"" for i in range(n)})
    elif kind == "glob":
        path = os.path.join(out, "glob-policy.json")
        with open(path, "w") as f:
            f.write('{"name": "glob", "forbid": ["' + "**a" * n + '**b"]}\n')
        wheel(out, "py3-none-any", {"hostile/" + "a" * 200 + "/" + "a" * 200 + ".py": b""})
    elif kind == "toml":
        path = os.path.join(out, "pyproject.toml")
        with open(path, "w") as f:
            f.write("[tool.wheelcheck]\npolicy = \"default\"\n[x]\ny = " + "{a = " * n + "1" + "}" * n + "\n")
    elif kind == "json":
        path = os.path.join(out, "deep-policy.json")
        with open(path, "w") as f:
            f.write('{"name": "deep", "forbid": ' + "[" * n + "]" * n + "}\n")
    elif kind == "evidence":
        path = sbom_wheel(out, "h.cdx.json", {
            "bomFormat": "CycloneDX", "specVersion": "1.6",
            "metadata": {"component": {"type": "library", "name": "hostile", "bom-ref": "root"}},
            "components": [{"type": "library", "name": "z", "version": "1", "bom-ref": "z",
                            "purl": "pkg:generic/z@1",
                            "evidence": {"occurrences": [{"location": f"hostile/f{i}.so"} for i in range(n)]}}]})
    elif kind == "spdxids":
        files = [{"SPDXID": "SPDXRef-f", "fileName": f"./hostile/f{i}.so",
                  "checksums": [{"algorithm": "SHA1", "checksumValue": "0" * 40}]} for i in range(n)]
        rels = [{"spdxElementId": "SPDXRef-p", "relationshipType": "CONTAINS", "relatedSpdxElement": "SPDXRef-f"}] * n
        path = sbom_wheel(out, "h.spdx.json", spdx([], files, rels))
    elif kind == "spdxchain":
        pkgs = [{"SPDXID": f"SPDXRef-q{i}", "name": f"q{i}", "versionInfo": "1", "downloadLocation": "NONE"}
                for i in range(n)]
        rels = [{"spdxElementId": "SPDXRef-p" if i == 0 else f"SPDXRef-q{i - 1}", "relationshipType": "DEPENDS_ON",
                 "relatedSpdxElement": f"SPDXRef-q{i}"} for i in range(n)]
        path = sbom_wheel(out, "h.spdx.json", spdx(pkgs, [], rels))
    elif kind == "attest":
        path = wheel(out, "py3-none-any", {"hostile/__init__.py": b""})
        with open(path + ".provenance", "w") as f:
            f.write('{"version": 1, "attestation_bundles": [{"publisher": {"kind": "GitHub"}, "attestations": [' +
                    ",".join(["{}"] * n) + "]}]}")
    elif kind == "extends":
        # level i: a{i}.json and b{i}.json, each extending a{i+1} and b{i+1}; the last extends default.
        for i in range(n, -1, -1):
            for side in "ab":
                parents = ["default"] if i == n else [f"a{i + 1}.json", f"b{i + 1}.json"]
                with open(os.path.join(out, f"{side}{i}.json"), "w") as f:
                    json.dump({"name": f"{side}{i}", "extends": parents}, f)
        path = os.path.join(out, "a0.json")
        wheel(out, "py3-none-any", {"hostile/__init__.py": b""})
    else:
        print(__doc__, file=sys.stderr)
        return 2
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
