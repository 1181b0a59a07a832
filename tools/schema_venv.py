"""check-jsonschema in a cached venv (installed from PyPI on first use), shared by the tools that
validate the workflows and the JSON reports. ensure() returns the venv's bin directory, or None when
it cannot be installed (no network): the callers then skip. Tests that run side by side share it:
tools/wc_cache.py builds it once under a lock and marks it complete last."""
import os

import wc_cache

CACHE = os.path.join(os.environ.get("HOME", "/root"), ".cache", "wheelcheck-tests", "check-jsonschema")


def ensure():
    try:
        return wc_cache.ensure_venv(CACHE, ["check-jsonschema>=0.28"], timeout=600)
    except (wc_cache.Offline, wc_cache.Failed) as e:  # no network, no venv module
        print(f"SKIP: cannot install check-jsonschema: {e}")
        return None
