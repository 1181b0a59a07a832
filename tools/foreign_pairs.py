#!/usr/bin/env python3
"""Independent ground truth for "does this torch extension bind all its symbols against that torch
wheel" on the two platforms wheelcheck cannot test by loading here (macOS arm64, Windows amd64),
compared with wheelcheck's WC514 verdict. Never part of `make test` (it downloads ~1 GB from PyPI).

  foreign_pairs.py [--wheelcheck BIN] [--cache DIR] [--platform mac|win|all] [--no-download]

Needs llvm-objdump (Mach-O: bind, lazy-bind, export trie, load commands) and pefile (PE imports,
delay imports, exports): run it with a python that has pefile, e.g.
  python3 -m venv /tmp/fp-venv && /tmp/fp-venv/bin/pip install pefile
  /tmp/fp-venv/bin/python tools/foreign_pairs.py --wheelcheck build/wheelcheck

1. Wheels are fetched with `pip download --no-deps --only-binary=:all: --platform P --python-version
   3.12` into CACHE/<mac|win> (default ~/.cache/wheelcheck-tests/foreign-pairs); wheels in the
   --seed folders (default /root/.cache/wc45/<mac|win>) are symlinked in first.
2. Pairs: each extension wheel beside the torch its Requires-Dist pins (when that torch is in the
   platform's torch list) and beside the other torches chosen below. Per binary of the extension
   wheel (all Mach-O / PE files it ships, bundled libraries included):
   Mach-O: every non-weak_import row of `llvm-objdump --macho --bind --lazy-bind` (weak-bind rows
   are coalescing, not imports) whose dylib is one the torch wheel ships (by load-command path via
   @loader_path / LC_RPATH, else by leaf name under torch/lib) or the extension wheel ships itself
   must name a symbol in that dylib's export trie (`--exports-trie`, LC_REEXPORT_DYLIB followed).
   llvm-objdump 14 reads neither LC_DYLD_EXPORTS_TRIE nor LC_DYLD_CHAINED_FIXUPS: such a trie is
   walked here in Python, and a chained-fixups binary's imports are the two-level ordinals of its
   undefined symbols (`llvm-nm -m -u`).
   Flat-namespace rows fail only for C++ names of c10/at/torch/caffe2 that no dylib of the run
   exports. A load-command path that names a torch-looking library (@rpath/lib*) found nowhere is a
   missing library.
   PE: every import (by name or ordinal) from a DLL the torch wheel ships under torch/lib or the
   extension wheel ships (file name, case-insensitive) must be exported by it (forwarders "X.name"
   to a DLL of the run followed). Delay-load imports are checked too but counted apart (warning).
3. `BIN check --format json --no-config EXT TORCH`: wheelcheck says a binary fails when a WC514
   finding of severity error names its entry. WC503 errors and WC517 (pip refuses the pair) are
   recorded beside it.
4. A table, the disagreements, per platform counts; CACHE/summary.json. Exit 0 only when all agree.
"""
import argparse, glob, json, os, re, shutil, subprocess, sys, zipfile

DEFAULT_CACHE = os.path.expanduser("~/.cache/wheelcheck-tests/foreign-pairs")
PY_VERSION = "3.12"

PLATFORMS = {
    "mac": {
        "pip_platform": "macosx_11_0_arm64",
        "seed": "/root/.cache/wc45/mac",
        "torch": ["2.5.1", "2.7.0", "2.9.0", "2.10.0", "2.11.0"],
        "extensions": ["torchvision==0.20.1", "torchvision==0.22.0", "torchvision==0.24.0",
                       "torchvision==0.25.0", "torchvision==0.26.0", "torchaudio==2.5.1",
                       "torchaudio==2.7.0", "torchaudio==2.9.0", "torchaudio==2.11.0"],
        # beside: the pinned torch, the newest, the oldest and the one just before the pin
        "others": "newest-oldest-previous",
    },
    "win": {
        "pip_platform": "win_amd64",
        "seed": "/root/.cache/wc45/win",
        "torch": ["2.5.1", "2.10.0", "2.15.0"],  # Windows torch wheels are 110-250 MB: three only
        "extensions": ["torchvision==0.20.1", "torchvision==0.25.0", "torchvision==0.28.0",
                       "torchvision==0.29.1", "torchaudio==2.5.1", "torchaudio==2.10.0",
                       "torchaudio==2.11.1"],
        "others": "all",
    },
}

MACHO_EXT = (".so", ".dylib")
PE_EXT = (".pyd", ".dll")
TORCH_CXX = re.compile(r"^__ZN[KVRLO]*\d+(c10|at|torch|caffe2)")


def log(*a):
    print(*a, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- wheels

def norm(name):
    return re.sub(r"[-_.]+", "_", name).lower()


def find_wheel(folder, project, version):
    pat = os.path.join(folder, f"{norm(project)}-{version}-*.whl")
    hits = sorted(glob.glob(pat))
    return hits[0] if hits else None


def fetch(folder, seed, pip_platform, req, no_download):
    project, version = req.split("==")
    os.makedirs(folder, exist_ok=True)
    w = find_wheel(folder, project, version)
    if w:
        return w
    if seed and os.path.isdir(seed):
        s = find_wheel(seed, project, version)
        if s:
            dst = os.path.join(folder, os.path.basename(s))
            os.symlink(s, dst)
            return dst
    if no_download:
        log(f"  missing {req} ({pip_platform}), --no-download")
        return None
    log(f"  pip download {req} ({pip_platform})")
    r = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                        "--platform", pip_platform, "--python-version", PY_VERSION, "-d", folder, req],
                       capture_output=True, text=True)
    if r.returncode:
        log(f"  pip download {req} failed: {r.stderr.strip()[-300:]}")
        return None
    return find_wheel(folder, project, version)


def torch_pin(wheel):
    with zipfile.ZipFile(wheel) as z:
        meta = [n for n in z.namelist() if n.endswith(".dist-info/METADATA") and n.count("/") == 1]
        text = z.read(meta[0]).decode("utf-8", "replace")
    for line in text.splitlines():
        m = re.match(r"Requires-Dist:\s*torch\b\s*(.*)$", line)
        if m:
            spec = m.group(1).strip()
            pin = re.search(r"==\s*([0-9][0-9a-z.+]*)", spec)
            return spec or "(any)", (pin.group(1) if pin else None)
    return None, None


def extract(wheel, root, exts):
    """The wheel's binaries under root (once); returns {entry: path on disk}."""
    done = os.path.join(root, ".done")
    out = {}
    with zipfile.ZipFile(wheel) as z:
        names = [n for n in z.namelist() if n.lower().endswith(exts)]
        if not os.path.exists(done):
            shutil.rmtree(root, ignore_errors=True)
            for n in names:
                z.extract(n, root)
            open(done, "w").close()
    for n in names:
        out[n] = os.path.join(root, n)
    return out


# ---------------------------------------------------------------- Mach-O (llvm-objdump)

def objdump(*args):
    r = subprocess.run(["llvm-objdump", "--macho", "--arch=arm64", *args], capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


class Cached:
    """One reading per file: MachO.get(path), PE.get(path)."""

    @classmethod
    def get(cls, path):
        cache = cls.__dict__.get("_cache")
        if cache is None:
            cache = {}
            setattr(cls, "_cache", cache)
        if path not in cache:
            cache[path] = cls(path)
        return cache[path]


class MachO(Cached):

    def __init__(self, path):
        self.path = path
        self.loads = []  # (cmd, name)
        self.rpaths = []
        self.cmds = set()
        self.exports_trie = {}
        rc, out, err = objdump("--private-headers", path)
        cmd = None
        for line in out.splitlines():
            s = line.strip()
            m = re.match(r"cmd (LC_\w+)$", s)
            if m:
                cmd = m.group(1)
                self.cmds.add(cmd)
                continue
            m = re.match(r"(dataoff|datasize) (\d+)$", s)
            if m and cmd == "LC_DYLD_EXPORTS_TRIE":
                self.exports_trie[m.group(1)] = int(m.group(2))
            m = re.match(r"(name|path) (.*) \(offset \d+\)$", s)
            if m and cmd:
                if cmd == "LC_RPATH":
                    self.rpaths.append(m.group(2))
                elif cmd in ("LC_LOAD_DYLIB", "LC_LOAD_WEAK_DYLIB", "LC_REEXPORT_DYLIB",
                             "LC_LOAD_UPWARD_DYLIB", "LC_LAZY_LOAD_DYLIB"):
                    self.loads.append((cmd, m.group(2)))
        self.chained_only = "LC_DYLD_CHAINED_FIXUPS" in self.cmds and not (
            {"LC_DYLD_INFO", "LC_DYLD_INFO_ONLY"} & self.cmds)
        self._exports = None

    def exports(self):
        if self._exports is None and "LC_DYLD_EXPORTS_TRIE" in self.cmds:
            # llvm-objdump 14 reads only LC_DYLD_INFO's trie: walk LC_DYLD_EXPORTS_TRIE here
            self._exports = read_export_trie(self.path, self.exports_trie)
        if self._exports is None:
            rc, out, err = objdump("--exports-trie", self.path)
            names = set()
            for line in out.splitlines():
                t = line.split()
                if len(t) >= 2 and (t[0].startswith("0x") or t[0] == "[re-export]"):
                    names.add(t[1])  # a re-export is dyld's to follow: the name is exported
            # an empty trie reads as "node is not an export node ... at node: 0x0"
            if rc and not names and "at node: 0x0" not in err:
                log(f"  warning: exports of {self.path}: {err.strip()[:200]}")
            self._exports = names
        return self._exports

    def binds(self):
        """[(dylib short name, symbol, weak_import, table)] from the bind and lazy-bind tables."""
        rows = []
        if self.chained_only:
            # llvm-objdump 14 has no --chained-fixups: the two-level library ordinals of the
            # undefined symbols in LC_SYMTAB (llvm-nm -m) name the same imports
            r = subprocess.run(["llvm-nm", "-m", "-u", "--arch=arm64", self.path], capture_output=True, text=True)
            for line in r.stdout.splitlines():
                m = re.match(r"\s*\(undefined\) (weak )?external (\S+) \((?:from (\S+)|dynamically looked up)\)", line)
                if m:
                    rows.append((m.group(3) or "flat-namespace", m.group(2), bool(m.group(1)), "nm"))
            return rows
        for table in ("--bind", "--lazy-bind"):
            rc, out, err = objdump(table, self.path)
            for line in out.splitlines():
                t = line.split()
                if len(t) < 4 or not t[0].startswith("__") or t[0] == "segment":
                    continue
                weak = t[-1] == "(weak_import)"
                if weak:
                    t = t[:-1]
                rows.append((t[-2], t[-1], weak, table[2:]))
        return rows


def uleb(b, i):
    v = shift = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return v, i


def read_export_trie(path, lc):
    """Names in the export trie at LC_DYLD_EXPORTS_TRIE dataoff/datasize (thin files only)."""
    with open(path, "rb") as f:
        magic = f.read(4)
        if magic in (b"\xca\xfe\xba\xbe", b"\xbe\xba\xfe\xca"):
            raise SystemExit(f"{path}: universal binary, export trie offsets need the slice")
        f.seek(lc["dataoff"])
        b = f.read(lc["datasize"])
    names, stack, seen = set(), [(0, "")], set()
    while stack:
        off, prefix = stack.pop()
        if off in seen or off >= len(b):
            continue
        seen.add(off)
        size, i = uleb(b, off)
        if size:
            names.add(prefix)
        i += size
        n = b[i]
        i += 1
        for _ in range(n):
            j = b.index(b"\0", i)
            edge = b[i:j].decode("latin-1")
            child, i = uleb(b, j + 1)
            stack.append((child, prefix + edge))
    return names


def short_names(install_name):
    """What llvm-objdump prints in the dylib column for this load command (guesses, all kept)."""
    leaf = install_name.rsplit("/", 1)[-1]
    out = {leaf}
    m = re.match(r"(.*)\.dylib$", leaf)
    if m:
        base = m.group(1)
        out.add(base)
        m2 = re.match(r"(.*)\.[A-Z]$", base)
        if m2:
            out.add(m2.group(1))
        for suf in ("_debug", "_profile"):
            if base.endswith(suf):
                out.add(base[: -len(suf)])
        out.add(base.split(".")[0])
    return out


class Run:
    """One extension wheel beside one torch wheel, as a site-packages of extracted files."""

    def __init__(self, ext_files, torch_files):
        self.ext = ext_files      # entry -> disk path
        self.torch = torch_files
        self.by_leaf_torch = {}
        for e, p in torch_files.items():
            self.by_leaf_torch.setdefault(os.path.basename(e).lower(), (e, p))
        self.by_leaf_ext = {}
        for e, p in ext_files.items():
            self.by_leaf_ext.setdefault(os.path.basename(e).lower(), (e, p))

    def lookup_entry(self, rel):
        rel = os.path.normpath(rel)
        if rel in self.ext:
            return "ext", rel, self.ext[rel]
        if rel in self.torch:
            return "torch", rel, self.torch[rel]
        return None

    def resolve_macho(self, entry, install_name, rpaths):
        d = os.path.dirname(entry)
        if install_name.startswith("@loader_path/") or install_name.startswith("@executable_path/"):
            hit = self.lookup_entry(os.path.join(d, install_name.split("/", 1)[1]))
            if hit:
                return hit
        elif install_name.startswith("@rpath/"):
            tail = install_name[len("@rpath/"):]
            for rp in rpaths:
                if rp.startswith("@loader_path"):
                    hit = self.lookup_entry(os.path.join(d, rp[len("@loader_path"):].lstrip("/"), tail))
                    if hit:
                        return hit
        elif install_name.startswith("/"):
            return None  # the system's
        leaf = install_name.rsplit("/", 1)[-1].lower()
        if leaf in self.by_leaf_torch:
            e, p = self.by_leaf_torch[leaf]
            return "torch", e, p
        if leaf in self.by_leaf_ext:
            e, p = self.by_leaf_ext[leaf]
            return "ext", e, p
        return None

    def macho_exports(self, path, seen=None):
        seen = seen or set()
        if path in seen:
            return set()
        seen.add(path)
        m = MachO.get(path)
        names = set(m.exports())
        for cmd, name in m.loads:
            if cmd == "LC_REEXPORT_DYLIB":
                entry = next((e for e, p in list(self.ext.items()) + list(self.torch.items()) if p == path), "")
                hit = self.resolve_macho(entry, name, m.rpaths)
                if hit:
                    names |= self.macho_exports(hit[2], seen)
        return names

    def check_macho(self, entry):
        path = self.ext[entry]
        m = MachO.get(path)
        res = {"checked": 0, "missing": [], "missing_libraries": [], "weak_import_skipped": 0,
               "flat": 0, "torch_binds": 0, "note": ""}
        if m.chained_only:
            res["note"] = "chained fixups: imports from llvm-nm -m"
        # short name -> resolved targets of the load commands
        targets = {}
        for cmd, name in m.loads:
            if cmd == "LC_LAZY_LOAD_DYLIB":
                continue
            hit = self.resolve_macho(entry, name, m.rpaths)
            if hit is None and name.startswith("@") and re.match(r"lib(c10|torch|shm|omp)", name.rsplit("/", 1)[-1]):
                res["missing_libraries"].append(name)
            for s in short_names(name):
                targets.setdefault(s, []).append((name, hit))
        exports_cache = {}

        def exp(p):
            if p not in exports_cache:
                exports_cache[p] = self.macho_exports(p)
            return exports_cache[p]

        all_run = None
        for dylib, sym, weak, table in m.binds():
            if dylib == "flat-namespace":
                res["flat"] += 1
                if weak or not TORCH_CXX.match(sym):
                    continue
                if all_run is None:
                    all_run = set()
                    for p in list(self.torch.values()) + list(self.ext.values()):
                        all_run |= exp(p)
                res["checked"] += 1
                if sym not in all_run:
                    res["missing"].append(f"{sym} (flat)")
                continue
            cands = targets.get(dylib, [])
            hits = [h for n, h in cands if h]
            if not hits:
                continue  # the system's, or a library already reported missing
            if weak:
                res["weak_import_skipped"] += 1
                continue
            res["checked"] += 1
            if any(h[0] == "torch" for h in hits):
                res["torch_binds"] += 1
            if not any(sym in exp(h[2]) for h in hits):
                res["missing"].append(f"{sym} ({dylib})")
        res["missing"] = sorted(set(res["missing"]))
        return res


# ---------------------------------------------------------------- PE (pefile)

class PE(Cached):

    def __init__(self, path):
        import pefile
        # pefile's defences against hostile files cut torch_cpu.dll short: over 0x2000 exports, over
        # 120 names at one address (identical-code folding), names over 0x200 bytes (MSVC C++ names)
        for k in ("MAX_SYMBOL_EXPORT_COUNT", "MAX_IMPORT_SYMBOLS"):
            setattr(pefile, k, 1 << 24)
        for k in ("MAX_SYMBOL_NAME_LENGTH", "MAX_IMPORT_NAME_LENGTH", "MAX_DLL_LENGTH"):
            setattr(pefile, k, 1 << 16)
        self.path = path
        pe = pefile.PE(path, fast_load=True, max_symbol_exports=1 << 24, max_repeated_symbol=1 << 24)
        d = pefile.DIRECTORY_ENTRY
        pe.parse_data_directories(directories=[d["IMAGE_DIRECTORY_ENTRY_IMPORT"],
                                               d["IMAGE_DIRECTORY_ENTRY_DELAY_IMPORT"],
                                               d["IMAGE_DIRECTORY_ENTRY_EXPORT"]])
        self.imports, self.delay = [], []
        for attr, dst in (("DIRECTORY_ENTRY_IMPORT", self.imports), ("DIRECTORY_ENTRY_DELAY_IMPORT", self.delay)):
            for entry in getattr(pe, attr, []):
                dll = entry.dll.decode("latin-1")
                for imp in entry.imports:
                    if imp.import_by_ordinal:
                        dst.append((dll, None, imp.ordinal))
                    else:
                        dst.append((dll, imp.name.decode("latin-1") if imp.name else None, None))
        self.names, self.ordinals = {}, {}
        exp = getattr(pe, "DIRECTORY_ENTRY_EXPORT", None)
        if exp:
            for s in exp.symbols:
                fwd = s.forwarder.decode("latin-1") if s.forwarder else None
                if s.name:
                    self.names[s.name.decode("latin-1")] = fwd
                self.ordinals[s.ordinal] = fwd
            # the directory's own counts: every name and every live ordinal must have been read
            if len(self.names) != exp.struct.NumberOfNames:
                log(f"  warning: {path}: {len(self.names)} export names read, header says {exp.struct.NumberOfNames}")
        for w in pe.get_warnings():
            if "xport" in w or "mport" in w:
                log(f"  pefile warning {os.path.basename(path)}: {w[:200]}")
        pe.close()


def pe_lookup(run, dll):
    leaf = dll.lower()
    if not leaf.endswith((".dll", ".pyd")):
        leaf += ".dll"
    if leaf in run.by_leaf_ext:
        return run.by_leaf_ext[leaf]
    if leaf in run.by_leaf_torch and os.path.dirname(run.by_leaf_torch[leaf][0]).lower() == "torch/lib":
        return run.by_leaf_torch[leaf]
    return None


def pe_has(run, dll_path, name, ordinal, depth=0):
    pe = PE.get(dll_path)
    if name is not None:
        if name not in pe.names:
            return False
        fwd = pe.names[name]
    else:
        if ordinal not in pe.ordinals:
            return False
        fwd = pe.ordinals[ordinal]
    if not fwd or depth > 8:
        return True
    tdll, _, tsym = fwd.rpartition(".")
    hit = pe_lookup(run, tdll)
    if not hit:
        return True  # forwarded outside the run (the system's)
    if tsym.startswith("#"):
        return pe_has(run, hit[1], None, int(tsym[1:]), depth + 1)
    return pe_has(run, hit[1], tsym, None, depth + 1)


def check_pe(run, entry):
    pe = PE.get(run.ext[entry])
    res = {"checked": 0, "missing": [], "missing_libraries": [], "delay_checked": 0, "delay_missing": [],
           "torch_binds": 0, "note": ""}
    for kind, rows in (("import", pe.imports), ("delay", pe.delay)):
        for dll, name, ordinal in rows:
            hit = pe_lookup(run, dll)
            if not hit:
                if re.match(r"(c10|torch|shm)", dll.lower()) and dll not in res["missing_libraries"]:
                    res["missing_libraries"].append(dll)
                continue
            label = f"{name if name is not None else '#%d' % ordinal} ({dll})"
            ok = pe_has(run, hit[1], name, ordinal)
            if kind == "import":
                res["checked"] += 1
                if hit[0].startswith("torch/"):
                    res["torch_binds"] += 1
                if not ok:
                    res["missing"].append(label)
            else:
                res["delay_checked"] += 1
                if not ok:
                    res["delay_missing"].append(label)
    res["missing"] = sorted(set(res["missing"]))
    return res


# ---------------------------------------------------------------- wheelcheck

def wheelcheck(bin_, ext_whl, torch_whl, out):
    if not os.path.exists(out):
        r = subprocess.run([bin_, "check", "--format", "json", "--no-config", "-q", "-j", "1",
                            ext_whl, torch_whl], capture_output=True, text=True)
        if r.returncode not in (0, 1):
            raise SystemExit(f"wheelcheck failed ({r.returncode}): {r.stderr[-500:]}")
        with open(out, "w") as f:
            f.write(r.stdout)
    with open(out) as f:
        rep = json.load(f)
    per = {}  # entry -> {rule: [messages]}
    pair = []
    for w in rep["wheels"]:
        for f in w["findings"]:
            entries = {f.get("entry")} | {l.get("entry") for l in f.get("locations", [])}
            entries.discard(None)
            if f["rule"] == "WC517":
                pair.append(f["message"])
            for e in entries:
                per.setdefault(e, []).append((f["rule"], f["severity"], f["message"]))
    return per, pair


def wc_symbols(message):
    """The mangled names a WC514 message lists (it may abbreviate)."""
    macho = re.findall(r"(?:^|[:;,] )(_[A-Za-z0-9_$.]+) \(", message)
    pe = re.findall(r"[\w.+-]+\.(?:dll|pyd)!(\S+?)(?=, | and | \(|$)", message, re.I)
    return macho + pe


# ---------------------------------------------------------------- main

def pairs_for(cfg, ext_pin):
    torches = cfg["torch"]
    chosen = []
    if ext_pin in torches:
        chosen.append(ext_pin)
    if cfg["others"] == "all":
        chosen += [t for t in torches if t not in chosen]
    else:
        newest, oldest = torches[-1], torches[0]
        chosen += [t for t in (newest, oldest) if t not in chosen]
        if ext_pin in torches and torches.index(ext_pin) > 0:
            prev = torches[torches.index(ext_pin) - 1]
            if prev not in chosen:
                chosen.append(prev)
    return chosen


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--wheelcheck", default="/tmp/wc-macho/wheelcheck")
    ap.add_argument("--cache", default=DEFAULT_CACHE)
    ap.add_argument("--platform", choices=["mac", "win", "all"], default="all")
    ap.add_argument("--no-download", action="store_true")
    ap.add_argument("--python", help="re-run this script with that interpreter (one that has pefile)")
    args = ap.parse_args()
    # (a venv's python is a symlink to the same binary: compare unresolved paths, once)
    if args.python and not os.environ.get("FOREIGN_PAIRS_REEXEC"):
        os.environ["FOREIGN_PAIRS_REEXEC"] = "1"
        os.execv(args.python, [args.python, os.path.abspath(__file__)] +
                 [a for a in sys.argv[1:] if a != "--python" and a != args.python])
    if args.platform in ("win", "all"):
        try:
            import pefile  # noqa: F401
        except ImportError:
            raise SystemExit("pefile missing: python3 -m venv /tmp/fp-venv && /tmp/fp-venv/bin/pip install pefile")
    if shutil.which("llvm-objdump") is None and args.platform in ("mac", "all"):
        raise SystemExit("llvm-objdump not found")

    summary = {"wheelcheck": args.wheelcheck, "platforms": {}}
    all_ok = True
    for plat, cfg in PLATFORMS.items():
        if args.platform not in (plat, "all"):
            continue
        folder = os.path.join(args.cache, plat)
        log(f"[{plat}] fetching")
        torch_whl = {}
        for v in cfg["torch"]:
            w = fetch(folder, cfg["seed"], cfg["pip_platform"], f"torch=={v}", args.no_download)
            if w:
                torch_whl[v] = w
        rows, disagreements = [], []
        st = os.stat(args.wheelcheck)  # reports are kept per wheelcheck build
        reports = os.path.join(args.cache, "reports", f"{int(st.st_mtime)}-{st.st_size}")
        os.makedirs(reports, exist_ok=True)
        for req in cfg["extensions"]:
            ew = fetch(folder, cfg["seed"], cfg["pip_platform"], req, args.no_download)
            if not ew:
                continue
            spec, pin = torch_pin(ew)
            exts = MACHO_EXT if plat == "mac" else PE_EXT
            ext_files = extract(ew, os.path.join(args.cache, "x", os.path.basename(ew)), exts)
            for tv in pairs_for(cfg, pin):
                if tv not in torch_whl:
                    continue
                tw = torch_whl[tv]
                torch_files = extract(tw, os.path.join(args.cache, "x", os.path.basename(tw)), exts)
                run = Run(ext_files, torch_files)
                rep = os.path.join(reports, f"{os.path.basename(ew)}__{os.path.basename(tw)}.json")
                per, pair_msgs = wheelcheck(args.wheelcheck, ew, tw, rep)
                for entry in sorted(ext_files):
                    ind = run.check_macho(entry) if plat == "mac" else check_pe(run, entry)
                    mine = "fails" if ind["missing"] else "loads"
                    fs = per.get(entry, [])
                    wc514 = [m for r, s, m in fs if r == "WC514" and s == "error"]
                    wc503 = [m for r, s, m in fs if r == "WC503" and s == "error"]
                    theirs = "fails" if wc514 else "loads"
                    row = {"extension": os.path.basename(ew), "torch": tv, "pin": spec,
                           "pinned_pair": tv == pin, "binary": entry, "independent": mine,
                           "wheelcheck": theirs, "agree": mine == theirs,
                           "missing": ind["missing"], "missing_libraries": ind["missing_libraries"],
                           "checked": ind["checked"], "torch_binds": ind["torch_binds"],
                           "note": ind["note"], "wc514": wc514, "wc503": wc503,
                           "wc517": bool(pair_msgs)}
                    if plat == "win":
                        row["delay_checked"] = ind["delay_checked"]
                        row["delay_missing"] = ind["delay_missing"]
                        row["wc_delay"] = [m for r, s, m in fs if r == "WC514" and s != "error"]
                    else:
                        row["weak_import_skipped"] = ind["weak_import_skipped"]
                    if wc514:
                        named = set()
                        for msg in wc514:
                            named |= set(wc_symbols(msg))
                        row["wc514_symbols"] = sorted(named)
                        row["wc514_count"] = sum(int(n) for msg in wc514
                                                 for n in re.findall(r"(\d+) (?:symbols?|imported names?) ", msg)[:1])
                    if mine == theirs == "fails":  # the same names: wheelcheck's count, and each it lists
                        own = {m.rsplit(" (", 1)[0] for m in ind["missing"]}
                        def named(w):  # wheelcheck elides the middle of long names with "…"
                            if "\u2026" not in w:
                                return w in own
                            head, _, tail = w.partition("\u2026")
                            return any(o.startswith(head) and o.endswith(tail) for o in own)
                        row["symbols_match"] = (row["wc514_count"] == len(own)
                                                and all(named(w) for w in row["wc514_symbols"]))
                    rows.append(row)
                    if not row["agree"]:
                        disagreements.append(row)
        # table
        print(f"\n=== {plat} ({cfg['pip_platform']}) ===")
        print(f"{'extension':46} {'torch':8} {'pin':16} {'binary':42} {'indep':6} {'wc':6} {'miss':>4} {'chk':>5}")
        for r in rows:
            if r["torch_binds"] == 0 and not r["missing"] and r["wheelcheck"] == "loads":
                continue  # bundled libraries that bind nothing of torch: counted, not listed
            flag = "" if r["agree"] else "  <-- DISAGREE"
            extra = " WC503" if r["wc503"] else ""
            if plat == "win" and r.get("delay_missing"):
                extra += f" delay-missing={len(r['delay_missing'])}"
            print(f"{r['extension'][:46]:46} {r['torch']:8} {str(r['pin'])[:16]:16} {r['binary'][-42:]:42} "
                  f"{r['independent']:6} {r['wheelcheck']:6} {len(r['missing']):4} {r['checked']:5}{extra}{flag}")
        n, agree = len(rows), sum(r["agree"] for r in rows)
        tb = [r for r in rows if r["torch_binds"]]
        print(f"[{plat}] {n} pairs (binary x torch), {agree} agree, {n - agree} disagree; "
              f"{len(tb)} pairs bind torch ({sum(r['agree'] for r in tb)} agree); "
              f"independent fails {sum(r['independent'] == 'fails' for r in rows)}, "
              f"wheelcheck fails {sum(r['wheelcheck'] == 'fails' for r in rows)}")
        both = [r for r in rows if "symbols_match" in r]
        print(f"[{plat}] both fail: {len(both)}, same missing names: {sum(r['symbols_match'] for r in both)}")
        for r in both:
            if not r["symbols_match"]:
                print(f"  NAMES DIFFER {r['extension']} + torch {r['torch']} {r['binary']}: "
                      f"independent {len(r['missing'])}, wheelcheck {r['wc514_count']} ({r['wc514_symbols'][:3]})")
        for r in disagreements:
            print(f"  DISAGREE {r['extension']} + torch {r['torch']} {r['binary']}: independent {r['independent']}"
                  f" ({len(r['missing'])} missing: {', '.join(r['missing'][:6])}) vs wheelcheck {r['wheelcheck']}"
                  f" ({'; '.join(m[:300] for m in r['wc514']) or 'no WC514'})")
        summary["platforms"][plat] = {"pairs": n, "agree": agree, "disagree": n - agree,
                                      "torch_binding_pairs": len(tb),
                                      "torch_binding_agree": sum(r["agree"] for r in tb),
                                      "rows": rows, "disagreements": disagreements}
        summary["platforms"][plat]["both_fail"] = len(both)
        summary["platforms"][plat]["same_missing_names"] = sum(r["symbols_match"] for r in both)
        all_ok &= agree == n and all(r["symbols_match"] for r in both)
    out = os.path.join(args.cache, "summary.json")
    with open(out, "w") as f:
        json.dump(summary, f, indent=1)
    print(f"\nsummary: {out}")
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
