#!/usr/bin/env python3
"""The official CycloneDX JSON schemas as an oracle for WC901: validates documents against the
schema of their specVersion (1.4-1.7, draft-07) with jsonschema, and prints one line per document:
"valid", or "invalid <JSON pointer>: <the schema's complaint>".

The schemas come from the wheel of cyclonedx-python-lib 11.12.0 on PyPI (CycloneDX's own library,
which vendors bom-1.x.schema.json with the spdx and jsf schemas they reference), downloaded into
CACHE pinned by sha256 and never committed. jsonschema and referencing come from the cached
check-jsonschema venv (tools/schema_venv.py).

Usage: cdx_schema_oracle.py CACHE DOC...
Exit 0 (each document's line printed), 3 the schemas or the validator cannot be had (callers skip)."""
import json, os, subprocess, sys, zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
import wc_cache  # noqa: E402

WHEEL = ("cyclonedx-python-lib", "cyclonedx_python_lib-11.12.0-py3-none-any.whl",
         "0e807521a921a5c3cb8ce1153f8a61d29eedfe76a46aac2796b7c6b573391a54")
RES = "cyclonedx/schema/_res/"


def schemas(cache):
    """CACHE/cdx-schemas/*.json, taken out of the pinned wheel once (under a lock, renamed into place)."""
    out = os.path.join(cache, "cdx-schemas")
    if os.path.isdir(out):
        return out
    path = wc_cache.fetch(cache, *WHEEL)
    with wc_cache.locked(out):
        if os.path.isdir(out):
            return out
        tmp = out + ".tmp.%d" % os.getpid()
        os.makedirs(tmp)
        with zipfile.ZipFile(path) as z:
            for n in z.namelist():
                if n.startswith(RES) and n.endswith(".json"):
                    with open(os.path.join(tmp, n[len(RES):]), "wb") as f:
                        f.write(z.read(n))
        os.rename(tmp, out)
    return out


def main():
    cache, docs = sys.argv[1], sys.argv[2:]
    try:
        import jsonschema, referencing  # noqa: F401
    except ImportError:
        if os.environ.get("CDX_ORACLE_REEXEC"):
            print("jsonschema/referencing not importable", file=sys.stderr)
            return 3
        import schema_venv
        bindir = schema_venv.ensure()
        if bindir is None:
            return 3
        env = dict(os.environ, CDX_ORACLE_REEXEC="1")
        return subprocess.run([os.path.join(bindir, "python"), __file__, *sys.argv[1:]], env=env).returncode
    import jsonschema
    from referencing import Registry, Resource
    try:
        d = schemas(cache)
    except (wc_cache.Offline, wc_cache.Failed) as e:
        print(e, file=sys.stderr)
        return 3
    registry = Registry()
    loaded = {}
    for n in os.listdir(d):
        with open(os.path.join(d, n)) as f:
            s = json.load(f)
        loaded[n] = s
        res = Resource.from_contents(s, default_specification=referencing.jsonschema.DRAFT7)
        # The bom schemas refer to their neighbours by file name, relative to their $id.
        registry = registry.with_resource("http://cyclonedx.org/schema/" + n, res)
        if isinstance(s.get("$id"), str):
            registry = registry.with_resource(s["$id"], res)
    for doc in docs:
        with open(doc) as f:
            j = json.load(f)
        name = "bom-%s.SNAPSHOT.schema.json" % j.get("specVersion")
        if name not in loaded:
            print("no schema for specVersion %r" % j.get("specVersion"))
            continue
        v = jsonschema.Draft7Validator(loaded[name], registry=registry)
        errors = sorted(v.iter_errors(j), key=lambda e: list(e.absolute_path))
        if not errors:
            print("valid")
        else:
            e = errors[0]
            print("invalid /%s: %s" % ("/".join(str(p) for p in e.absolute_path), e.message.replace("\n", " ")[:300]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
