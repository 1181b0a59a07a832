#!/usr/bin/env python3
"""Generates policies/pypi_platforms.json: the platform tags PyPI's upload accepts (WC106), read from
pypi/warehouse's warehouse/forklift/legacy.py, the code that decides it (_valid_platform_tag).

  gen_pypi_platforms.py --legacy PATH --commit SHA [--out FILE | --check FILE]
  gen_pypi_platforms.py --fetch CACHE_DIR [--out FILE | --check FILE]

--legacy reads a legacy.py (from a warehouse checkout at --commit); --fetch downloads the pinned
commit's legacy.py (checked against its sha256) into CACHE_DIR once, and exits 3 when GitHub cannot
be reached (the tests skip then). The file is read with ast, never imported: the set literals
(_allowed_platforms, the arch and macOS version sets, unions of them) and the tag regexes, whose
text the C++ side (rules/pypi_platforms.cc) implements and the tests compare.

--check regenerates in memory and exits 1, naming the first differences, when FILE disagrees."""
import argparse, ast, hashlib, json, os, sys, urllib.error, urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wc_cache  # noqa: E402

PINNED_COMMIT = "6b62157124ab7865029afeeadf282bce27d601d9"
PINNED_SHA256 = "1199084d6aa5a9391cb055007347ff77f90d6f4e957aa0dac32c24e7d0e1d2e5"
URL = "https://raw.githubusercontent.com/pypi/warehouse/{}/warehouse/forklift/legacy.py"

SETS = {  # legacy.py name -> key in the generated table
    "_allowed_platforms": "static",
    "_macosx_arches": "macosx_arches",
    "_macosx_major_versions": "macosx_major_versions",
    "_ios_arches": "ios_arches",
    "_android_arches": "android_arches",
    "_manylinux_arches": "manylinux_arches",
    "_musllinux_arches": "musllinux_arches",
}
REGEXES = {
    "_macosx_platform_re": "macosx",
    "_ios_platform_re": "ios",
    "_android_platform_re": "android",
    "_linux_platform_re": "linux",
    "_pyemscripten_platform_re": "pyemscripten",
}


def fetch(cache_dir):
    dest = os.path.join(cache_dir, f"warehouse-{PINNED_COMMIT[:12]}-legacy.py")
    with wc_cache.locked(dest):
        if os.path.exists(dest) and wc_cache.sha256_of(dest) == PINNED_SHA256:
            return dest
        try:
            with urllib.request.urlopen(URL.format(PINNED_COMMIT), timeout=60) as r:
                data = r.read()
        except (urllib.error.URLError, OSError) as e:
            raise wc_cache.Offline(f"{URL.format(PINNED_COMMIT)}: {e}")
        got = hashlib.sha256(data).hexdigest()
        if got != PINNED_SHA256:
            raise wc_cache.Failed(f"legacy.py at {PINNED_COMMIT} has sha256 {got}, expected {PINNED_SHA256}")
        wc_cache.atomic_write(dest, data)
    return dest


def evaluate(node, known):
    """A set literal, a name bound earlier, or a union of them."""
    if isinstance(node, ast.Set):
        return {ast.literal_eval(e) for e in node.elts}
    if isinstance(node, ast.Name) and node.id in known:
        return known[node.id]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return evaluate(node.left, known) | evaluate(node.right, known)
    raise ValueError(f"line {node.lineno}: not a set expression this generator understands")


def top_level_statements(text):
    """Each top-level statement that this Python can parse: legacy.py uses syntax newer than some
    interpreters read (PEP 758's bare `except A, B:`), so it is parsed one statement at a time, a
    statement starting at every line in column 0 that does not close a bracket."""
    lines, chunks, current = text.splitlines(keepends=True), [], []
    for line in lines:
        if line[:1] not in ("", " ", "\t", "\n", ")", "]", "}", "#") and current:
            chunks.append("".join(current))
            current = []
        current.append(line)
    chunks.append("".join(current))
    for chunk in chunks:
        try:
            yield from ast.parse(chunk).body
        except SyntaxError:
            continue


def read(path):
    with open(path, "rb") as f:
        source = f.read()
    known, regexes = {}, {}
    for stmt in top_level_statements(source.decode()):
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
            continue
        name, value = stmt.targets[0].id, stmt.value
        if name in REGEXES:
            if not (isinstance(value, ast.Call) and value.args and isinstance(value.args[0], ast.Constant)):
                raise ValueError(f"{name}: not re.compile(<literal>)")
            regexes[REGEXES[name]] = value.args[0].value
        elif name.startswith("_") and name.endswith(("_platforms", "_arches", "_versions")):
            known[name] = evaluate(value, known)
    missing = [n for n in SETS if n not in known] + [n for n, k in REGEXES.items() if k not in regexes]
    if missing:
        raise ValueError("legacy.py no longer defines " + ", ".join(missing) + ": read _valid_platform_tag again")
    table = {key: sorted(known[name]) for name, key in SETS.items()}
    table["regexes"] = dict(sorted(regexes.items()))
    return table, hashlib.sha256(source).hexdigest()


def document(table, commit, sha256):
    return {
        "$schema": "./policy.schema.json",
        "name": "pypi_platforms",
        "description": (
            "The platform tags PyPI's upload accepts (WC106): warehouse's _valid_platform_tag data. Generated by "
            f"tools/gen_pypi_platforms.py from pypi/warehouse {commit} warehouse/forklift/legacy.py (sha256 "
            f"{sha256}); do not edit by hand. Merged into every policy through default."),
        "pypi_platforms": dict(table, source=f"pypi/warehouse {commit} warehouse/forklift/legacy.py"),
    }


def render(doc):
    return json.dumps(doc, indent=2) + "\n"


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--legacy")
    src.add_argument("--fetch", metavar="CACHE_DIR")
    ap.add_argument("--commit", default=PINNED_COMMIT)
    out = ap.add_mutually_exclusive_group(required=True)
    out.add_argument("--out")
    out.add_argument("--check")
    a = ap.parse_args(argv)
    try:
        path = a.legacy or fetch(a.fetch)
        table, sha256 = read(path)
    except wc_cache.Offline as e:
        print(f"offline: {e}", file=sys.stderr)
        return 3
    except (OSError, ValueError, wc_cache.Failed) as e:
        print(f"gen_pypi_platforms: {e}", file=sys.stderr)
        return 1
    doc = document(table, a.commit, sha256)
    if a.out:
        wc_cache.atomic_write(a.out, render(doc).encode())
        return 0
    if not wc_cache.check_table(a.check, doc):
        return 1
    print(f"{a.check} agrees with pypi/warehouse {a.commit[:12]} legacy.py")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
