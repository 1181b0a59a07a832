"""wheelcheck: release validation for Python wheels with native and CUDA code.

This package carries the two programs (`wheelcheck`, `wheelsmoke`) built from C++; it only locates
and runs them. Use the console commands, `python -m wheelcheck`, or `wheelcheck.run([...])`."""
import os
import subprocess
import sys

__all__ = ["binary", "run", "main", "smoke_main"]

_HERE = os.path.dirname(os.path.abspath(__file__))


def binary(name="wheelcheck"):
    """The path of the bundled `wheelcheck` or `wheelsmoke` executable."""
    path = os.path.join(_HERE, "bin", name)
    if not os.access(path, os.X_OK):
        raise FileNotFoundError(f"{path}: not found or not executable (a broken installation of the wheelcheck package?)")
    return path


def run(args, name="wheelcheck", **kwargs):
    """Runs the program with `args`; returns the subprocess.CompletedProcess (exit 0 pass, 1 findings, 2 usage)."""
    return subprocess.run([binary(name), *args], **kwargs)


def _exec(name):
    path = binary(name)
    if os.name == "posix":
        os.execv(path, [name, *sys.argv[1:]])  # replaces this process: signals and exit codes pass through
    sys.exit(subprocess.call([path, *sys.argv[1:]]))


def main():
    _exec("wheelcheck")


def smoke_main():
    _exec("wheelsmoke")
