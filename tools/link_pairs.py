#!/usr/bin/env python3
"""Ground truth for "does this extension link when installed beside that library", and a check of
wheelcheck's static prediction (WC514 unresolved undefined symbol, WC503 needed library not found)
against it. Stdlib only; never part of `make test` (it downloads gigabytes from PyPI).

  link_pairs.py truth   [--cache DIR] [--pairs NAME...] [--python PY] [--seed DIR]
  link_pairs.py compare --wheelcheck BIN [--cache DIR] [--pairs NAME...] [--json OUT] [--jobs N]
  link_pairs.py smoke   --wheelsmoke BIN [--cache DIR] [--pairs NAME...] [--json OUT]
  link_pairs.py list

truth: per pair of the PAIRS table, a venv under CACHE/venvs/<base> gets the base requirements with
their dependencies (downloaded once into CACHE/wheels, installed from there with --no-index), then
the extension wheel with --no-deps (so a mismatching release really sits beside the base). A fresh
child interpreter imports the base package and opens every native library (*.so, *.so.N) of the
extension wheel's RECORD with ctypes.CDLL(path, RTLD_NOW), retrying failures while any other library
of the wheel newly loads (the order a package's own loader would use: libtorchaudio.so before the
_torchaudio.so that needs it without a RUNPATH). The last error of each library is kept and
classified: undefined symbol, version not found, missing library, other. Results: CACHE/truth.json
(merged by pair name with earlier runs). The extension is uninstalled again afterwards.

compare: per pair in truth.json, `BIN check --format json` over the base wheels that carry native
libraries plus the extension wheel; a library is predicted to fail when a WC514 finding, or a WC503
finding of severity error, names its path in the extension wheel. Prints disagreements and
"N pairs, M libraries: K agree"; exit 0 only when all agree. Raw reports: CACHE/compare/<pair>.json.

smoke: per pair in truth.json, the extension installed beside its base again (--no-deps) and
`BIN import --python <the base venv's python>` run over the base's native wheels and the extension:
its per-library verdict (loaded by an import or by ctypes.CDLL, or failed) must equal the truth, and
no WS304 (a disagreement with wheelcheck's own prediction) may appear. Prints disagreements and
"N pairs, M libraries: K agree, W WS304"; exit 0 only when all agree and W is 0.

--seed (default /root/.cache/wheelcheck-tests/real): wheels already fetched there are hard-linked
into CACHE/wheels first, so pip finds them "already downloaded"."""
import argparse, csv, ctypes, glob, io, json, os, re, shutil, subprocess, sys, time, urllib.parse, zipfile

DEFAULT_CACHE = os.path.expanduser("~/.cache/wheelcheck-tests/link-pairs")
DEFAULT_SEED = os.path.expanduser("~/.cache/wheelcheck-tests/real")
PY_VERSION = "3.12"  # the cp tag the wheels below exist for; the host python3 may differ

# Bases: what one venv holds before an extension is added. imports: what the child imports first
# (as the extension's own package would); libraries it then finds by soname are the base's.
BASES = {
    "torch-2.14.1": {"requires": ["torch==2.14.1"], "imports": ["torch"]},
    "torch-2.15.0": {"requires": ["torch==2.15.0"], "imports": ["torch"]},
    "pyarrow-23.0.1": {"requires": ["pyarrow==23.0.1"], "imports": ["pyarrow"]},
    "pyarrow-25.0.1": {"requires": ["pyarrow==25.0.1"], "imports": ["pyarrow"]},
    "pyarrow-26.0.1": {"requires": ["pyarrow==26.0.1"], "imports": ["pyarrow"]},
    # libcusparse finds libnvJitLink through RUNPATH $ORIGIN/../../nvjitlink/lib: nothing to import.
    "nvjitlink-cu12-12.1.105": {"requires": ["nvidia-nvjitlink-cu12==12.1.105"], "imports": []},
    "nvjitlink-cu12-12.4.127": {"requires": ["nvidia-nvjitlink-cu12==12.4.127"], "imports": []},
    "nvjitlink-cu12-12.9.86": {"requires": ["nvidia-nvjitlink-cu12==12.9.86"], "imports": []},
}

# Extensions: requirement, what they were built for (their Requires-Dist, or the ABI they use), and
# optionally the modules the child imports after the base (a package that loads its own libraries,
# through torch.ops.load_library or a ctypes loader of its own, is seen by a user that way).
EXTENSIONS = {
    "torchvision-0.29.2": ("torchvision==0.29.2", "torch>=2.14.0, py3-none (stable ABI)"),
    "torchvision-0.29.1": ("torchvision==0.29.1", "torch>=2.14.0, cp312"),
    "torchvision-0.28.0": ("torchvision==0.28.0", "torch==2.13.0"),
    "torchvision-0.27.1": ("torchvision==0.27.1", "torch==2.12.1"),
    "torchaudio-2.11.1": ("torchaudio==2.11.1", "torch>=2.11, py3-none (stable ABI)"),
    "torchaudio-2.11.0": ("torchaudio==2.11.0", "no torch pin, abi3 libraries"),
    "torchaudio-2.10.0": ("torchaudio==2.10.0", "torch==2.10.0 (CUDA 12)"),
    "torchao-0.18.0": ("torchao==0.18.0", "no torch pin, cp310-abi3"),
    "torchao-0.17.0": ("torchao==0.17.0", "no torch pin, cp310-abi3"),
    "pymongoarrow-1.15.0": ("pymongoarrow==1.15.0", "pyarrow>=25.0,<25.1"),
    "pymongoarrow-1.13.1": ("pymongoarrow==1.13.1", "pyarrow>=23.0,<23.1"),
    "cusparse-cu12-12.3.1.170": ("nvidia-cusparse-cu12==12.3.1.170", "__nvJitLink*_12_4"),
    "cusparse-cu12-12.5.10.65": ("nvidia-cusparse-cu12==12.5.10.65", "__nvJitLink*_12_9"),
    "xformers-0.0.35": ("xformers==0.0.35", "torch>=2.10, py39-none-manylinux_2_28 (CUDA 12 runtime)",
                        ["xformers"]),
    "fbgemm-gpu-cpu-1.8.0": ("fbgemm_gpu_cpu==1.8.0", "no torch pin, op libraries via torch.ops.load_library",
                             ["fbgemm_gpu"]),
    "torchtext-0.18.0": ("torchtext==0.18.0", "torch==2.3.0, lib/libtorchtext.so before _torchtext.so",
                         ["torchtext"]),
    "bitsandbytes-0.50.2": ("bitsandbytes==0.50.2", "torch, libbitsandbytes_<backend>.so picked for torch's CUDA",
                            ["bitsandbytes"]),
    # Older releases beside the two torch bases: pins they exclude, no pin, abi3 and py3-none tags.
    "torchvision-0.29.0": ("torchvision==0.29.0", "torch==2.14.0"),
    "torchvision-0.27.0": ("torchvision==0.27.0", "torch==2.12.0"),
    "torchvision-0.26.0": ("torchvision==0.26.0", "torch==2.11.0"),
    "torchvision-0.25.0": ("torchvision==0.25.0", "torch==2.10.0"),
    "torchvision-0.24.1": ("torchvision==0.24.1", "torch==2.9.1"),
    "torchvision-0.23.0": ("torchvision==0.23.0", "torch==2.8.0"),
    "torchvision-0.22.1": ("torchvision==0.22.1", "torch==2.7.1"),
    "torchvision-0.21.0": ("torchvision==0.21.0", "torch==2.6.0, manylinux1"),
    "torchvision-0.20.1": ("torchvision==0.20.1", "torch==2.5.1, manylinux1"),
    "torchvision-0.19.1": ("torchvision==0.19.1", "torch==2.4.1, manylinux1"),
    "torchvision-0.18.1": ("torchvision==0.18.1", "torch==2.3.1, manylinux1"),
    "torchvision-0.17.2": ("torchvision==0.17.2", "torch==2.2.2, manylinux1"),
    "torchaudio-2.9.1": ("torchaudio==2.9.1", "torch==2.9.1"),
    "torchaudio-2.9.0": ("torchaudio==2.9.0", "torch==2.9.0"),
    "torchaudio-2.8.0": ("torchaudio==2.8.0", "torch==2.8.0 (ffmpeg/sox variants)"),
    "torchaudio-2.7.1": ("torchaudio==2.7.1", "torch==2.7.1 (ffmpeg/sox variants)"),
    "torchaudio-2.6.0": ("torchaudio==2.6.0", "torch==2.6.0 (ffmpeg/sox variants)"),
    "torchaudio-2.5.1": ("torchaudio==2.5.1", "torch==2.5.1 (ffmpeg/sox variants)"),
    "torchaudio-2.4.1": ("torchaudio==2.4.1", "torch==2.4.1 (ffmpeg/sox variants)"),
    "torchaudio-2.3.1": ("torchaudio==2.3.1", "torch==2.3.1 (ffmpeg/sox variants)"),
    "torchao-0.16.0": ("torchao==0.16.0", "no torch pin, cp310-abi3"),
    "torchao-0.15.0": ("torchao==0.15.0", "no torch pin, cp310-abi3"),
    "torchao-0.14.1": ("torchao==0.14.1", "no torch pin, cp310-abi3"),
    "torchao-0.13.0": ("torchao==0.13.0", "no torch pin, cp39-abi3, build tag 1"),
    "torchao-0.12.0": ("torchao==0.12.0", "no torch pin, cp39-abi3"),
    "torchao-0.11.0": ("torchao==0.11.0", "no torch pin, cp39-abi3"),
    "torchao-0.10.0": ("torchao==0.10.0", "no torch pin, cp39-abi3"),
    "torchtext-0.17.2": ("torchtext==0.17.2", "torch==2.2.2 (torchdata pin: not imported)"),
    "torchtext-0.16.2": ("torchtext==0.16.2", "torch==2.2.0 (torchdata pin: not imported)"),
    "torch-tensorrt-2.14.0": ("torch-tensorrt==2.14.0", "torch>=2.14,<2.15, TensorRT not installed"),
    "torch-tensorrt-2.13.0": ("torch-tensorrt==2.13.0", "torch 2.13, TensorRT not installed"),
    # Imported: they load their own libraries (torch.ops.load_library, ctypes), some per variant.
    "torchcodec-0.17.0": ("torchcodec==0.17.0", "no pin, libtorchcodec_core<ffmpeg major>.so", ["torchcodec"]),
    "torchcodec-0.16.0": ("torchcodec==0.16.0", "no pin, libtorchcodec_core<ffmpeg major>.so", ["torchcodec"]),
    "torchcodec-0.15.0": ("torchcodec==0.15.0", "no pin, libtorchcodec_core<ffmpeg major>.so", ["torchcodec"]),
    "torchcodec-0.14.0": ("torchcodec==0.14.0", "no pin, libtorchcodec_core<ffmpeg major>.so", ["torchcodec"]),
    "torchcodec-0.12.0": ("torchcodec==0.12.0", "no pin, libtorchcodec_core<ffmpeg major>.so", ["torchcodec"]),
    "torchcodec-0.10.0": ("torchcodec==0.10.0", "no pin, libtorchcodec_core<ffmpeg major>.so", ["torchcodec"]),
    "torchcodec-0.8.1": ("torchcodec==0.8.1", "no pin, libtorchcodec_core<ffmpeg major>.so", ["torchcodec"]),
    "torchcodec-0.6.0": ("torchcodec==0.6.0", "no pin, libtorchcodec_core<ffmpeg major>.so", ["torchcodec"]),
    "torchcodec-0.4.0": ("torchcodec==0.4.0", "no pin, libtorchcodec_core<ffmpeg major>.so", ["torchcodec"]),
    "torchcodec-0.2.1": ("torchcodec==0.2.1", "no pin, libtorchcodec<ffmpeg major>.so", ["torchcodec"]),
    "fbgemm-gpu-cpu-1.9.0": ("fbgemm_gpu_cpu==1.9.0", "no torch pin, torch.ops.load_library", ["fbgemm_gpu"]),
    "fbgemm-gpu-cpu-1.7.0": ("fbgemm_gpu_cpu==1.7.0", "no torch pin, torch.ops.load_library", ["fbgemm_gpu"]),
    "fbgemm-gpu-cpu-1.6.0": ("fbgemm_gpu_cpu==1.6.0", "no torch pin, torch.ops.load_library", ["fbgemm_gpu"]),
    "fbgemm-gpu-cpu-1.5.0": ("fbgemm_gpu_cpu==1.5.0", "no torch pin, torch.ops.load_library", ["fbgemm_gpu"]),
    "fbgemm-gpu-cpu-1.4.2": ("fbgemm_gpu_cpu==1.4.2", "no torch pin, torch.ops.load_library", ["fbgemm_gpu"]),
    "fbgemm-gpu-cpu-1.3.0": ("fbgemm_gpu_cpu==1.3.0", "no torch pin, torch.ops.load_library", ["fbgemm_gpu"]),
    "fbgemm-gpu-cpu-1.2.0": ("fbgemm_gpu_cpu==1.2.0", "no torch pin, torch.ops.load_library", ["fbgemm_gpu"]),
    "fbgemm-gpu-cpu-1.1.0": ("fbgemm_gpu_cpu==1.1.0", "no torch pin, torch.ops.load_library", ["fbgemm_gpu"]),
    "fbgemm-gpu-cpu-1.0.0": ("fbgemm_gpu_cpu==1.0.0", "no torch pin, one fbgemm_gpu_py.so, manylinux2014",
                             ["fbgemm_gpu"]),
    "tensordict-0.14.3": ("tensordict==0.14.3", "torch (no version), _C.so", ["tensordict"]),
    "tensordict-0.12.4": ("tensordict==0.12.4", "torch (no version), _C.so", ["tensordict"]),
    "tensordict-0.10.0": ("tensordict==0.10.0", "torch (no version), _C.so", ["tensordict"]),
    "tensordict-0.8.3": ("tensordict==0.8.3", "torch (no version), _C.so", ["tensordict"]),
    "bitsandbytes-0.49.2": ("bitsandbytes==0.49.2", "torch>=2.3,<3, per-CUDA variants", ["bitsandbytes"]),
    "bitsandbytes-0.48.2": ("bitsandbytes==0.48.2", "torch>=2.3,<3, per-CUDA variants", ["bitsandbytes"]),
    "bitsandbytes-0.47.0": ("bitsandbytes==0.47.0", "torch>=2.2,<3, per-CUDA variants", ["bitsandbytes"]),
    "bitsandbytes-0.46.1": ("bitsandbytes==0.46.1", "torch>=2.2,<3, per-CUDA variants", ["bitsandbytes"]),
    "bitsandbytes-0.45.5": ("bitsandbytes==0.45.5", "torch>=2.0,<3, per-CUDA variants", ["bitsandbytes"]),
    "bitsandbytes-0.44.1": ("bitsandbytes==0.44.1", "torch, per-CUDA and _nocublaslt variants", ["bitsandbytes"]),
    "xformers-0.0.34": ("xformers==0.0.34", "torch==2.10.0, cp39-abi3", ["xformers"]),
    "xformers-0.0.30": ("xformers==0.0.30", "torch==2.7.0, cp312", ["xformers"]),
    "xformers-0.0.29.post3": ("xformers==0.0.29.post3", "torch==2.6.0, cp312", ["xformers"]),
    "xformers-0.0.28.post3": ("xformers==0.0.28.post3", "torch==2.5.1, cp312", ["xformers"]),
    "k2-1.23.4": ("k2==1.23.4", "torch==1.13.1, py3.9-none-any, .data/platlib, _k2.cpython-39", ["k2"]),
}


def ext_imports(key):
    """The modules the child imports for this extension after the base ([] when none)."""
    return list(EXTENSIONS[key][2]) if len(EXTENSIONS[key]) > 2 else []


TORCH_EXTS = ["torchvision-0.29.2", "torchvision-0.29.1", "torchvision-0.28.0", "torchvision-0.27.1",
              "torchaudio-2.11.1", "torchaudio-2.11.0", "torchaudio-2.10.0", "torchao-0.18.0",
              "torchao-0.17.0"]
# torchvision 0.30.0 is not on PyPI (newest: 0.29.2).
TORCH_EXTS_IMPORTED = ["xformers-0.0.35", "fbgemm-gpu-cpu-1.8.0", "torchtext-0.18.0", "bitsandbytes-0.50.2"]
PAIRS = [(f"{e}+{b}", b, e) for b in ("torch-2.14.1", "torch-2.15.0") for e in TORCH_EXTS] + [
    ("pymongoarrow-1.15.0+pyarrow-25.0.1", "pyarrow-25.0.1", "pymongoarrow-1.15.0"),
    ("pymongoarrow-1.15.0+pyarrow-26.0.1", "pyarrow-26.0.1", "pymongoarrow-1.15.0"),
    ("pymongoarrow-1.13.1+pyarrow-23.0.1", "pyarrow-23.0.1", "pymongoarrow-1.13.1"),
    ("pymongoarrow-1.13.1+pyarrow-25.0.1", "pyarrow-25.0.1", "pymongoarrow-1.13.1"),
    ("cusparse-cu12-12.3.1.170+nvjitlink-cu12-12.1.105", "nvjitlink-cu12-12.1.105", "cusparse-cu12-12.3.1.170"),
    ("cusparse-cu12-12.3.1.170+nvjitlink-cu12-12.4.127", "nvjitlink-cu12-12.4.127", "cusparse-cu12-12.3.1.170"),
    ("cusparse-cu12-12.3.1.170+nvjitlink-cu12-12.9.86", "nvjitlink-cu12-12.9.86", "cusparse-cu12-12.3.1.170"),
    ("cusparse-cu12-12.5.10.65+nvjitlink-cu12-12.4.127", "nvjitlink-cu12-12.4.127", "cusparse-cu12-12.5.10.65"),
    ("cusparse-cu12-12.5.10.65+nvjitlink-cu12-12.9.86", "nvjitlink-cu12-12.9.86", "cusparse-cu12-12.5.10.65"),
] + [(f"{e}+{b}", b, e) for b in ("torch-2.15.0", "torch-2.14.1") for e in TORCH_EXTS_IMPORTED]
# The older releases and the other families above, each beside both torch bases.
_OLDER = list(EXTENSIONS)[list(EXTENSIONS).index("torchvision-0.29.0"):]
PAIRS += [(f"{e}+{b}", b, e) for e in _OLDER for b in ("torch-2.14.1", "torch-2.15.0")]

NATIVE_RE = re.compile(r"\.so(\.[0-9]+)*$")
OUTCOMES = ("ok", "undefined symbol", "version not found", "missing library", "other")


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def is_native(entry):
    return bool(NATIVE_RE.search(entry.rsplit("/", 1)[-1]))


def classify(err):
    """The dynamic loader's dlerror() text -> one of OUTCOMES[1:]."""
    if err is None:
        return "ok"
    if "cannot open shared object file" in err:
        return "missing library"
    if "undefined symbol" in err or re.search(r"symbol \S+ version \S+ not defined", err):
        return "undefined symbol"
    if re.search(r"version `[^']*' not found", err):
        return "version not found"
    return "other"


# ---------------------------------------------------------------- child (runs in the venv python)

def child_main(argv):
    """python link_pairs.py _probe SPEC.json OUT.json: import the base, then the extension's own
    modules (spec "ext_imports"), then load the libraries (those an import loaded load again)."""
    spec = json.load(open(argv[0]))
    out = {"base_import": {}, "ext_import": {}, "libraries": {}}
    for key, mods in (("base_import", spec["imports"]), ("ext_import", spec.get("ext_imports", []))):
        for mod in mods:
            try:
                __import__(mod)
                out[key][mod] = None
            except BaseException as e:  # an import that fails is a result, not a crash
                out[key][mod] = f"{type(e).__name__}: {e}"
    mapped = set()
    try:  # what the imports loaded already: the installed paths mapped into this process
        for line in open("/proc/self/maps"):
            f = line.split(None, 5)
            if len(f) == 6 and f[5].startswith("/"):
                mapped.add(os.path.realpath(f[5].strip()))
    except OSError:
        pass
    pending, errors, loaded_in = list(spec["libraries"].items()), {}, {}
    handles, rnd = [], 0
    while pending:
        rnd += 1
        still = []
        for key, path in pending:
            try:
                handles.append(ctypes.CDLL(path, os.RTLD_NOW))
                loaded_in[key] = rnd
            except OSError as e:
                errors[key] = str(e)
                still.append((key, path))
        if len(still) == len(pending):
            break
        pending = still
    for key in spec["libraries"]:
        if key in loaded_in:
            out["libraries"][key] = {"result": "ok", "round": loaded_in[key]}
            if os.path.realpath(spec["libraries"][key]) in mapped:
                out["libraries"][key]["loaded_by_import"] = True
        else:
            out["libraries"][key] = {"result": classify(errors[key]), "error": errors[key]}
    json.dump(out, open(argv[1], "w"), indent=1)
    return 0


# ---------------------------------------------------------------- truth

def find_python(explicit):
    cands = [explicit] if explicit else []
    cands += [shutil.which(f"python{PY_VERSION}") or "", sys.executable]
    cands += sorted(glob.glob(os.path.expanduser(f"~/.pyenv/versions/{PY_VERSION}*/bin/python{PY_VERSION}")))
    for c in cands:
        if not c:
            continue
        r = subprocess.run([c, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                           capture_output=True, text=True)
        if r.returncode == 0 and (explicit or r.stdout.strip() == PY_VERSION):
            return c
    sys.exit(f"link_pairs: no python{PY_VERSION} found; pass --python")


def run(cmd, **kw):
    log("  $ " + " ".join(cmd))
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.exit(f"link_pairs: failed ({r.returncode}): {' '.join(cmd)}\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}")
    return r


def seed_wheels(seed, wheels):
    if not seed or not os.path.isdir(seed):
        return
    for src in glob.glob(os.path.join(seed, "*.whl")):
        dst = os.path.join(wheels, os.path.basename(src))
        if not os.path.exists(dst):
            try:
                os.link(src, dst)
            except OSError:
                shutil.copy2(src, dst)


def report_files(path):
    """pip install --report -> the wheel file names it installed, with their dist names."""
    rep = json.load(open(path))
    out = []
    for item in rep.get("install", []):
        url = item["download_info"]["url"]
        out.append((item["metadata"]["name"], urllib.parse.unquote(urllib.parse.urlparse(url).path.rsplit("/", 1)[-1])))
    return out


def has_native(wheel_path):
    with zipfile.ZipFile(wheel_path) as z:
        return any(is_native(n) for n in z.namelist())


PIP_QUIET = ["--disable-pip-version-check", "--no-cache-dir", "--only-binary", ":all:"]


def ensure_base(cache, key, python):
    """A venv with the base installed from CACHE/wheels; reused when its marker matches."""
    base, venv = BASES[key], os.path.join(cache, "venvs", key)
    marker, wheels = os.path.join(venv, "link-pairs-base.json"), os.path.join(cache, "wheels")
    if os.path.exists(marker):
        m = json.load(open(marker))
        if m.get("requires") == base["requires"]:
            return venv, m
    log(f"[base {key}] creating {venv}")
    shutil.rmtree(venv, ignore_errors=True)
    run([python, "-m", "venv", venv])
    pip = [os.path.join(venv, "bin", "python"), "-m", "pip"]
    run(pip + ["download"] + PIP_QUIET + ["-d", wheels] + base["requires"])
    rep = os.path.join(venv, "base-install-report.json")
    run(pip + ["install"] + PIP_QUIET + ["--no-index", "--find-links", wheels, "--report", rep] + base["requires"])
    files = [f for _, f in report_files(rep)]
    m = {"requires": base["requires"], "wheels": files,
         "native_wheels": [f for f in files if has_native(os.path.join(wheels, f))]}
    json.dump(m, open(marker, "w"), indent=1)
    return venv, m


def wheel_libraries(wheel_path, site):
    """Native libraries of a wheel's RECORD: path inside the wheel -> installed path."""
    with zipfile.ZipFile(wheel_path) as z:
        record = [n for n in z.namelist() if re.fullmatch(r"[^/]+\.dist-info/RECORD", n)][0]
        # csv: some RECORDs quote every path ("torchcodec/libtorchcodec_core4.so",sha256=...,N)
        rows = [r[0] for r in csv.reader(io.StringIO(z.read(record).decode())) if r]
    libs = {}
    for entry in rows:
        if not is_native(entry):
            continue
        m = re.fullmatch(r"[^/]+\.data/(purelib|platlib)/(.+)", entry)
        if re.match(r"[^/]+\.data/", entry) and not m:
            continue  # scripts/headers/data land outside site-packages; not loaded by a package
        libs[entry] = os.path.join(site, m.group(2) if m else entry)
    return libs


# Run by the venv python: the extension's Requires-Dist (no extras) that nothing installed provides
# by name, e.g. numpy or tqdm beside torch; the base's own packages (torch) stay as they are.
MISSING_DEPS = r"""
import json, sys, importlib.metadata as md
from pip._vendor.packaging.requirements import Requirement
from pip._vendor.packaging.utils import canonicalize_name as canon
have = {canon(d.metadata["Name"]) for d in md.distributions()}
out = []
for r in md.distribution(sys.argv[1]).requires or []:
    q = Requirement(r)
    if (q.marker is None or q.marker.evaluate({"extra": ""})) and canon(q.name) not in have:
        out.append(str(q).split(";")[0].strip())
print(json.dumps(out))
"""


def ext_dependencies(pip, vpy, wheels, dist):
    """For an extension that is imported: install its missing pure dependencies (numpy, tqdm, ...)
    so that its import fails, if at all, on its libraries, not on a missing module. Returns the
    distributions installed, to uninstall afterwards."""
    missing = json.loads(run([vpy, "-c", MISSING_DEPS, dist]).stdout)
    if not missing:
        return []
    run(pip + ["download"] + PIP_QUIET + ["-d", wheels] + missing)
    rep = os.path.join(wheels, "..", "work", f"deps-{dist}.install.json")
    run(pip + ["install"] + PIP_QUIET + ["--no-index", "--find-links", wheels, "--report", rep] + missing)
    return [n for n, _ in report_files(rep)]


def probe_pair(cache, name, base_key, ext_key, python):
    t0 = time.time()
    venv, base = ensure_base(cache, base_key, python)
    wheels, vpy = os.path.join(cache, "wheels"), os.path.join(venv, "bin", "python")
    pip = [vpy, "-m", "pip"]
    req = EXTENSIONS[ext_key][0]
    run(pip + ["download"] + PIP_QUIET + ["--no-deps", "-d", wheels, req])
    work = os.path.join(cache, "work")
    os.makedirs(work, exist_ok=True)
    rep = os.path.join(work, f"{name}.install.json")
    run(pip + ["install"] + PIP_QUIET + ["--no-deps", "--no-index", "--find-links", wheels,
                                         "--force-reinstall", "--report", rep, req])
    (dist, ext_file), = report_files(rep)
    deps = ext_dependencies(pip, vpy, wheels, dist) if ext_imports(ext_key) else []
    site = run([vpy, "-c", "import sysconfig; print(sysconfig.get_paths()['platlib'])"]).stdout.strip()
    libs = wheel_libraries(os.path.join(wheels, ext_file), site)
    spec_path, out_path = os.path.join(work, f"{name}.spec.json"), os.path.join(work, f"{name}.out.json")
    env = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "LD_PRELOAD", "PYTHONPATH")}
    ext_mods, crashed = ext_imports(ext_key), None
    for mods in ([ext_mods, []] if ext_mods else [[]]):
        json.dump({"imports": BASES[base_key]["imports"], "ext_imports": mods, "libraries": libs},
                  open(spec_path, "w"))
        r = subprocess.run([vpy, "-I", os.path.abspath(__file__), "_probe", spec_path, out_path],
                           capture_output=True, text=True, env=env, timeout=900, cwd=work)
        if r.returncode == 0 and os.path.exists(out_path):
            break
        if not mods:
            sys.exit(f"link_pairs: probe of {name} crashed ({r.returncode}):\n{r.stderr[-3000:]}")
        # the extension's import killed the interpreter (a signal, os._exit): that is its result;
        # the libraries are probed again without it
        crashed = f"crashed ({r.returncode}): {r.stderr[-1000:].strip()}"
        log(f"  import of {ext_mods} {crashed[:300]}; probing the libraries without it")
    out = json.load(open(out_path))
    if crashed:
        out["ext_import"] = {m: crashed for m in ext_mods}
    os.remove(out_path)
    for k, v in out["libraries"].items():
        if not os.path.exists(libs[k]):  # checked before uninstalling: the install put it elsewhere
            out["libraries"][k] = {"result": "other", "error": f"not installed at {libs[k]}"}
    run(pip + ["uninstall", "-y", dist] + deps)
    for k, v in out["libraries"].items():
        if cascade_from(k, out["libraries"]):
            v["cascade_from"] = cascade_from(k, out["libraries"])
    return {"name": name, "base": base_key, "base_requires": BASES[base_key]["requires"],
            "base_wheels": base["wheels"], "base_native_wheels": base["native_wheels"],
            "extension": ext_key, "extension_built_for": EXTENSIONS[ext_key][1],
            "extension_wheel": ext_file, "python": PY_VERSION, "base_import": out["base_import"],
            "ext_import": out["ext_import"], "ext_dependencies": deps, "libraries": out["libraries"],
            "seconds": round(time.time() - t0, 1)}


def select_pairs(names):
    if not names:
        return PAIRS
    known = {p[0]: p for p in PAIRS}
    bad = [n for n in names if n not in known and not any(n in k for k in known)]
    if bad:
        sys.exit(f"link_pairs: unknown pairs {bad}; `link_pairs.py list` shows them")
    return [p for p in PAIRS if any(n == p[0] or n in p[0] for n in names)]


def cascade_from(entry, libraries):
    """The wheel's own library whose failure made this one fail ("libtorchaudio.so: cannot open
    shared object file" while libtorchaudio.so itself failed on libcudart.so.12), or None."""
    v = libraries[entry]
    m = re.match(r"([^:/]+): cannot open shared object file", v.get("error") or "")
    if v["result"] != "missing library" or not m:
        return None
    for other, ov in libraries.items():
        if other != entry and other.rsplit("/", 1)[-1] == m.group(1) and ov["result"] != "ok":
            return other
    return None


def counts(libraries):
    c = {o: 0 for o in OUTCOMES}
    for v in libraries.values():
        c[v["result"]] += 1
    return c


def cmd_truth(a):
    cache = os.path.abspath(a.cache)
    os.makedirs(os.path.join(cache, "wheels"), exist_ok=True)
    seed_wheels(a.seed, os.path.join(cache, "wheels"))
    python = find_python(a.python)
    truth_path = os.path.join(cache, "truth.json")
    old = {p["name"]: p for p in json.load(open(truth_path))} if os.path.exists(truth_path) else {}
    t0 = time.time()
    for name, base, ext in select_pairs(a.pairs):
        log(f"[pair {name}]")
        old[name] = probe_pair(cache, name, base, ext, python)
        c = counts(old[name]["libraries"])
        imp = "".join(f", import {m} " + ("ok" if e is None else "FAILS") for m, e in old[name]["ext_import"].items())
        print(f"{name}: " + ", ".join(f"{k} {v}" for k, v in c.items() if v) + imp +
              f"  ({old[name]['seconds']} s)", flush=True)
        order = [p[0] for p in PAIRS]
        rows = sorted(old.values(), key=lambda p: order.index(p["name"]) if p["name"] in order else 1 << 30)
        with open(truth_path + ".tmp", "w") as f:
            json.dump(rows, f, indent=1)
        os.replace(truth_path + ".tmp", truth_path)
    print(f"truth: {truth_path} ({round(time.time() - t0, 1)} s)")
    return 0


# ---------------------------------------------------------------- compare

def predict(report, ext_wheel, libraries):
    """lib path -> (fails?, [rule: message]) from the extension wheel's findings."""
    findings = []
    for w in report.get("wheels", []):
        if os.path.basename(w.get("path", "")) == ext_wheel:
            findings += w.get("findings", [])
    # A folded finding (one message at several entries) lists every entry, the first one too, in
    # "locations": each of them is that finding at that entry.
    findings = [dict(f, entry=l.get("entry", f.get("entry")), message=l.get("message", f.get("message", "")))
                for f in findings for l in (f.get("locations") or [{}])]
    out = {}
    for lib in libraries:
        # A WC503 warning that calls the library a candidate (a variant a loader picks where another
        # CUDA, ROCm or MPI is installed: bitsandbytes' _cuda118.so), or one that says it fails
        # where something loads it (ctypes.CDLL here is that something), predicts that it fails.
        warned_failure = ("a candidate a loader picks", "so this fails only where something loads it")
        hits = [f for f in findings
                if (f.get("rule") == "WC514" or (f.get("rule") == "WC503" and (
                    f.get("severity") == "error" or any(w in f.get("message", "") for w in warned_failure))))
                and (f.get("entry") == lib or (not f.get("entry") and lib in f.get("message", "")))]
        out[lib] = (bool(hits), [f"{f['rule']}: {f.get('message', '')}" for f in hits])
    return out


def load_truth(a):
    """The cache folder and truth.json's pairs (those --pairs names, when given)."""
    cache = os.path.abspath(a.cache)
    truth = json.load(open(os.path.join(cache, "truth.json")))
    if a.pairs:
        names = {p[0] for p in select_pairs(a.pairs)}
        truth = [p for p in truth if p["name"] in names]
    return cache, truth


def cmd_compare(a):
    cache, truth = load_truth(a)
    wheels, outdir = os.path.join(cache, "wheels"), os.path.join(cache, "compare")
    os.makedirs(outdir, exist_ok=True)
    rows, agree, total = [], 0, 0
    for pair in truth:
        files = [os.path.join(wheels, f) for f in pair["base_native_wheels"] + [pair["extension_wheel"]]]
        cmd = [a.wheelcheck, "check", "--no-config", "--format", "json", "-q", "-j", str(a.jobs)]
        cmd += a.wheelcheck_arg + files
        t0 = time.time()
        r = subprocess.run(cmd, capture_output=True, text=True, cwd=cache)
        if r.returncode not in (0, 1):
            sys.exit(f"link_pairs: wheelcheck exit {r.returncode} on {pair['name']}:\n{r.stderr[-3000:]}")
        with open(os.path.join(outdir, pair["name"] + ".json"), "w") as f:
            f.write(r.stdout)
        pred = predict(json.loads(r.stdout), pair["extension_wheel"], pair["libraries"])
        for lib, t in pair["libraries"].items():
            fails, why = pred[lib]
            truth_fails = t["result"] != "ok"
            ok = fails == truth_fails
            total += 1
            agree += ok
            rows.append({"pair": pair["name"], "library": lib, "truth": t["result"],
                         "truth_error": t.get("error"), "predicted": "fails" if fails else "loads",
                         "findings": why, "agree": ok})
            if not ok:
                detail = (t.get("error") or "").rsplit("site-packages/", 1)[-1][:160] if truth_fails else "; ".join(why)[:160]
                via = cascade_from(lib, pair["libraries"])
                if via:
                    detail = f"cascade: needs {via} of the same wheel, which fails; " + detail
                print(f"DISAGREE {pair['name']}: {lib}: truth {t['result']}, predicted "
                      f"{'fails' if fails else 'loads'}  [{detail}]")
        log(f"  {pair['name']}: wheelcheck {round(time.time() - t0, 1)} s")
    print(f"{len(truth)} pairs, {total} libraries: {agree} agree")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"pairs": len(truth), "libraries": total, "agree": agree, "rows": rows}, f, indent=1)
    return 0 if agree == total else 1


def install_path(entry):
    m = re.fullmatch(r"[^/]+\.data/(purelib|platlib)/(.+)", entry)
    return m.group(2) if m else entry


def cmd_smoke(a):
    cache, truth = load_truth(a)
    wheels, outdir = os.path.join(cache, "wheels"), os.path.join(cache, "smoke")
    os.makedirs(outdir, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "LD_PRELOAD", "PYTHONPATH")}
    rows, agree, total, disagreements = [], 0, 0, []
    for pair in truth:
        t0 = time.time()
        venv = os.path.join(cache, "venvs", pair["base"])
        vpy = os.path.join(venv, "bin", "python")
        ext = os.path.join(wheels, pair["extension_wheel"])
        pip = [vpy, "-m", "pip"]
        run(pip + ["install"] + PIP_QUIET + ["--no-deps", "--no-index", "--force-reinstall", ext])
        try:
            files = [os.path.join(wheels, f) for f in pair["base_native_wheels"]] + [ext]
            r = subprocess.run([a.wheelsmoke, "import", "--python", vpy, "--format", "json"] + files,
                               capture_output=True, text=True, cwd=cache, env=env, timeout=3600)
        finally:
            dist = pair["extension_wheel"].split("-")[0]
            run(pip + ["uninstall", "-y", dist])
        if r.returncode not in (0, 1):
            sys.exit(f"link_pairs: wheelsmoke exit {r.returncode} on {pair['name']}:\n{r.stderr[-3000:]}")
        with open(os.path.join(outdir, pair["name"] + ".json"), "w") as f:
            f.write(r.stdout)
        report = json.loads(r.stdout)
        item = next(i for i in report["artifacts"] if os.path.basename(i["path"]) == pair["extension_wheel"])
        verdicts = item.get("facts", {}).get("verdicts", {})
        for it in report["artifacts"]:
            for f in it.get("findings", []):
                if f["rule"] in ("WS304", "WS305"):
                    disagreements.append(f"{pair['name']}: {f['rule']} {f['message'][:300]}")
                    print(f"{f['rule']} {pair['name']}: {f['message'][:300]}")
        for lib, t in pair["libraries"].items():
            v = verdicts.get(install_path(lib), "not reported")
            loads = v.startswith("loaded")
            ok = loads == (t["result"] == "ok")
            total += 1
            agree += ok
            rows.append({"pair": pair["name"], "library": lib, "truth": t["result"], "wheelsmoke": v, "agree": ok})
            if not ok:
                print(f"DISAGREE {pair['name']}: {lib}: truth {t['result']}, wheelsmoke {v[:200]}")
        log(f"  {pair['name']}: wheelsmoke {round(time.time() - t0, 1)} s")
    print(f"{len(truth)} pairs, {total} libraries: {agree} agree, {len(disagreements)} WS304/WS305")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"pairs": len(truth), "libraries": total, "agree": agree, "ws304_ws305": disagreements,
                       "rows": rows}, f, indent=1)
    return 0 if agree == total and not disagreements else 1


def cmd_list(_a):
    for name, base, ext in PAIRS:
        print(f"{name:55s} base {BASES[base]['requires']}  ext {EXTENSIONS[ext][0]} (built for {EXTENSIONS[ext][1]})")
    return 0


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "_probe":
        return child_main(sys.argv[2:])
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("truth", help="install the pairs and load them for real")
    t.add_argument("--cache", default=DEFAULT_CACHE)
    t.add_argument("--pairs", nargs="+", help="pair names (or substrings of them)")
    t.add_argument("--python", help=f"interpreter for the venvs (default: a python{PY_VERSION})")
    t.add_argument("--seed", default=DEFAULT_SEED, help="wheel folder hard-linked into CACHE/wheels")
    c = sub.add_parser("compare", help="check the pairs with wheelcheck and compare with truth.json")
    c.add_argument("--wheelcheck", required=True)
    c.add_argument("--cache", default=DEFAULT_CACHE)
    c.add_argument("--pairs", nargs="+")
    c.add_argument("--json", help="write the comparison here")
    c.add_argument("--jobs", type=int, default=2, help="wheelcheck -j (default 2)")
    c.add_argument("--wheelcheck-arg", action="append", default=[],
                   help="extra argument for `wheelcheck check` (repeatable), e.g. --policy=pytorch")
    sm = sub.add_parser("smoke", help="wheelsmoke import over the pairs against truth.json")
    sm.add_argument("--wheelsmoke", required=True)
    sm.add_argument("--cache", default=DEFAULT_CACHE)
    sm.add_argument("--pairs", nargs="+")
    sm.add_argument("--json", help="write the comparison here")
    sub.add_parser("list", help="print the pair table")
    a = ap.parse_args()
    return {"truth": cmd_truth, "compare": cmd_compare, "smoke": cmd_smoke, "list": cmd_list}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
