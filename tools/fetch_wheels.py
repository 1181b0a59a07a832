#!/usr/bin/env python3
"""Downloads files from PyPI into a cache, verified by sha256, for the real-wheel tests and the
benchmarks (never committed). Files already cached with the right hash are not fetched again.
Safe when many run at once on one cache (tools/wc_cache.py: a lock per file, a temporary file of
each process's own, an atomic rename): each file is downloaded once, and no reader sees half of one.

  fetch_wheels.py CACHE_DIR PROJECT FILENAME SHA256 [PROJECT FILENAME SHA256 ...]

WHEELCHECK_PYPI_SIMPLE overrides the index (default https://pypi.org/simple; it must answer the
PEP 691 JSON form). Prints one path per file. Exit 3 when the index cannot be reached (callers
skip), 1 on a hash mismatch or a failed download."""
import os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wc_cache  # noqa: E402


def main():
    if len(sys.argv) < 2 or (len(sys.argv) - 2) % 3:
        print(__doc__, file=sys.stderr)
        return 2
    cache, rest = sys.argv[1], sys.argv[2:]
    os.makedirs(cache, exist_ok=True)
    pages = {}
    for proj, name, want in zip(rest[::3], rest[1::3], rest[2::3]):
        try:
            print(wc_cache.fetch(cache, proj, name, want, pages), flush=True)
        except wc_cache.Offline as e:
            print(e, file=sys.stderr)
            return 3
        except wc_cache.Failed as e:
            print(e, file=sys.stderr)
            return 1
    return 0


sys.exit(main())
