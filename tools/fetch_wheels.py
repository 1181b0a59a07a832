#!/usr/bin/env python3
"""Downloads files from PyPI into a cache, verified by sha256, for the real-wheel tests and the
benchmarks (never committed). Files already cached with the right hash are not fetched again.

  fetch_wheels.py CACHE_DIR PROJECT FILENAME SHA256 [PROJECT FILENAME SHA256 ...]

Prints one path per file. Exit 3 when PyPI cannot be reached (callers skip), 1 on a hash mismatch."""
import hashlib, json, os, sys, urllib.error, urllib.request

def sha256_of(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while b := f.read(1 << 20):
            h.update(b)
    return h.hexdigest()

def main():
    cache, rest = sys.argv[1], sys.argv[2:]
    os.makedirs(cache, exist_ok=True)
    pages = {}
    for proj, name, want in zip(rest[::3], rest[1::3], rest[2::3]):
        dst = os.path.join(cache, name)
        if os.path.exists(dst) and sha256_of(dst) == want:
            print(dst)
            continue
        try:
            if proj not in pages:
                req = urllib.request.Request(f"https://pypi.org/simple/{proj}/", headers={"Accept": "application/vnd.pypi.simple.v1+json"})
                pages[proj] = {f["filename"]: f["url"] for f in json.load(urllib.request.urlopen(req, timeout=60))["files"]}
            url = pages[proj].get(name)
            if not url:
                print(f"{name}: not on PyPI's page for {proj}", file=sys.stderr)
                return 1
            h = hashlib.sha256()
            with urllib.request.urlopen(url, timeout=600) as r, open(dst + ".part", "wb") as out:
                while b := r.read(1 << 20):
                    h.update(b)
                    out.write(b)
        except (urllib.error.URLError, OSError) as e:
            print(f"cannot reach PyPI: {e}", file=sys.stderr)
            return 3
        if h.hexdigest() != want:
            os.remove(dst + ".part")
            print(f"{name}: sha256 {h.hexdigest()}, expected {want}", file=sys.stderr)
            return 1
        os.replace(dst + ".part", dst)
        print(dst)
    return 0

sys.exit(main())
