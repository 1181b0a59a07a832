"""check-jsonschema in a cached venv (installed from PyPI on first use), shared by the tools that
validate the workflows and the JSON reports. ensure() returns the venv's bin directory, or None when
it cannot be installed (no network): the callers then skip."""
import os, subprocess, venv

CACHE = os.path.join(os.environ.get("HOME", "/root"), ".cache", "wheelcheck-tests", "check-jsonschema")


def ensure():
    bindir = os.path.join(CACHE, "bin")
    if os.path.exists(os.path.join(bindir, "check-jsonschema")):
        return bindir
    try:
        venv.create(CACHE, with_pip=True)
        subprocess.run([os.path.join(bindir, "python"), "-m", "pip", "install", "--quiet", "check-jsonschema>=0.28"],
                       check=True, timeout=600)
    except Exception as e:  # no network, no venv module
        print(f"SKIP: cannot install check-jsonschema: {e}")
        return None
    return bindir
