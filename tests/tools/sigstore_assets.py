#!/usr/bin/env python3
"""Real Sigstore data for the provenance tests, downloaded into CACHE by exact name and sha256 and
never committed:

- pypi-attestations 0.0.31's sdist: test/assets/ holds production PEP 740 attestations (a CircleCI-
  published wheel with its provenance object, GitHub- and GitLab-published sdists with publish and
  SLSA attestations, a Google Cloud Build provenance) and a staging, hand-signed wheel (rfc8785);
- sigstore 4.5.1's sdist: sigstore/_store/ holds the production and staging trusted_root.json.

Prints two lines: the assets folder and the folder of the trust roots.
Usage: sigstore_assets.py CACHE. Exit 0, 3 when the index cannot be reached (callers skip), 1 else."""
import os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
import wc_cache  # noqa: E402

ATTESTATIONS = ("pypi-attestations", "pypi_attestations-0.0.31.tar.gz",
                "5a2473aca7d7f65caf2c3a985691c5cf9264a97fa68c98fbae6e96320bcc7c9a")
SIGSTORE = ("sigstore", "sigstore-4.5.1.tar.gz", "14accda8a7d4ef47cb25b4903829fb10f011048c261a5937724a43d073c4f34d")


def main():
    cache = sys.argv[1]
    os.makedirs(cache, exist_ok=True)
    try:
        pages = {}
        a = wc_cache.fetch(cache, *ATTESTATIONS, pages=pages)
        s = wc_cache.fetch(cache, *SIGSTORE, pages=pages)
        print(wc_cache.extract_dir(a, "pypi_attestations-0.0.31/test/assets", cache))
        print(wc_cache.extract_dir(s, "sigstore-4.5.1/sigstore/_store", cache))
    except wc_cache.Offline as e:
        print(e, file=sys.stderr)
        return 3
    except Exception as e:  # noqa: BLE001 - said, and the test fails on it
        print(e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
