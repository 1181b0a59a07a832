#!/usr/bin/env python3
"""What Python's zipfile and pypa/installer install from each wheel named on stdin (one path a line):
one JSON line per wheel, in order:

  {"path": P, "refused": "why"}                      zipfile or installer refuses the wheel
  {"path": P, "files": {KEY: SHA256}, "escapes": [KEY...], "scripts": [NAME...]}

with, under "pip", what pip's own installer (pip._internal's install_wheel, the venv's pip) writes
for real into a temporary prefix: {"refused": "why"} or {"files": {KEY: SHA256}}, the files pip
generates (INSTALLER, its RECORD, entry-point wrappers) left out; a script whose "#!python" line
it rewrites has the digest "rewritten" (where it lands is compared, not its bytes).

KEY is the install path as wheelcheck's install_map() spells it: site-packages paths (purelib,
platlib, the root) as they are, the other schemes as "<scripts>/x", "<headers>/x", "<data>/x";
SHA256 is RECORD's form (urlsafe base64, no padding) of the bytes zipfile reads. Nothing is written:
a recording destination models the file system installer would write to (an existing path and a
file where a directory must go fail as they would on disk), RECORD validation is installer's own
(`python -m installer`'s default), scripts keep their bytes (installer's shebang rewrite is left
out: it is no choice of entry). A path that leaves its scheme directory is listed under "escapes".
Used by tests/installer_test.cc through a venv with the pinned installer."""
import base64, hashlib, json, os, posixpath, signal, sys, zipfile

from installer import install
from installer.destinations import WheelDestination
from installer.records import Hash, RecordEntry
from installer.sources import WheelFile


def b64(data):
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


class Recording(WheelDestination):
    def __init__(self):
        self.files, self.dirs, self.escapes, self.scripts = {}, set(), [], []

    @staticmethod
    def key(scheme, path):
        inner = posixpath.normpath(path) if path else path
        root = "" if scheme in ("purelib", "platlib") else "<%s>/" % scheme
        escapes = path.startswith("/") or inner == ".." or inner.startswith("../")
        return root + inner, escapes

    def write_file(self, scheme, path, stream, is_executable):
        data = stream.read()
        key, escapes = self.key(scheme, os.fspath(path))
        if escapes:
            self.escapes.append(key)
            return RecordEntry(path, Hash("sha256", b64(data)), len(data))
        if key in self.files or key in self.dirs:
            raise FileExistsError("File already exists: " + key)
        parts = key.split("/")
        for i in range(1, len(parts)):
            if "/".join(parts[:i]) in self.files:
                raise NotADirectoryError("a file is in the way of " + key)
        self.dirs.update("/".join(parts[:i]) for i in range(1, len(parts)))
        self.files[key] = b64(data)
        return RecordEntry(path, Hash("sha256", b64(data)), len(data))

    def write_script(self, name, module, attr, section):
        key, escapes = self.key("scripts", name)
        (self.escapes if escapes or key in ("<scripts>/.", "<scripts>") else self.scripts).append(key)
        return RecordEntry(name, None, None)

    def finalize_installation(self, scheme, record_file_path, records):
        pass


def pip_install(path):
    """pip's installer, run for real into a fresh prefix (pip refuses paths outside it itself)."""
    import tempfile
    from pip._internal.locations.base import get_major_minor_version  # noqa: F401 (pip is importable)
    from pip._internal.models.scheme import Scheme
    from pip._internal.operations.install.wheel import install_wheel

    name = os.path.basename(path).split("-")[0]
    with tempfile.TemporaryDirectory() as root:
        dirs = {k: os.path.join(root, k) for k in ("site", "headers", "scripts", "data")}
        scheme = Scheme(platlib=dirs["site"], purelib=dirs["site"], headers=dirs["headers"],
                        scripts=dirs["scripts"], data=dirs["data"])
        try:
            install_wheel(name, path, scheme, name, pycompile=False, warn_script_location=False)
        except Hang:
            raise
        except BaseException as e:  # pip's refusals, whatever their type
            return {"refused": "%s: %s" % (type(e).__name__, e)}
        with zipfile.ZipFile(path) as z:
            wheel_scripts = {n.split("/", 2)[2] for n in z.namelist()
                             if n.split("/", 1)[0].endswith(".data") and n.split("/")[1:2] == ["scripts"]
                             and len(n.split("/", 2)) > 2}
            rewritten = {n.split("/", 2)[2] for n in z.namelist()
                         if n.split("/", 2)[2:] and n.split("/", 2)[2] in wheel_scripts
                         and z.read(n).startswith(b"#!python")}
        files = {}
        for scheme_name, top in dirs.items():
            for base, _, names in os.walk(top):
                for n in names:
                    full = os.path.join(base, n)
                    rel = os.path.relpath(full, top).replace(os.sep, "/")
                    if scheme_name == "site":
                        parts = rel.split("/")
                        if len(parts) == 2 and parts[0].endswith(".dist-info") and parts[1] in ("INSTALLER", "RECORD"):
                            continue
                        key = rel
                    else:
                        if scheme_name == "scripts" and rel not in wheel_scripts:
                            continue
                        key = "<%s>/%s" % (scheme_name, rel)
                        if scheme_name == "scripts" and rel in rewritten:
                            files[key] = "rewritten"
                            continue
                    with open(full, "rb") as f:
                        files[key] = b64(f.read())
        return {"files": files}


class Hang(Exception):
    pass


def on_alarm(signum, frame):
    raise Hang()


def one(path):
    try:
        with zipfile.ZipFile(path) as z:
            source = WheelFile(z)
            source.validate_record(validate_contents=True)
            dest = Recording()
            install(source, dest, {})
            return {"files": dest.files, "escapes": dest.escapes, "scripts": dest.scripts}
    except Hang:
        return {"refused": "installer did not finish in 5 s (it loops)"}
    except Exception as e:  # every refusal zipfile or installer makes, whatever its type
        return {"refused": "%s: %s" % (type(e).__name__, e)}


def main():
    signal.signal(signal.SIGALRM, on_alarm)
    for line in sys.stdin:
        path = line.rstrip("\n")
        if not path:
            continue
        signal.alarm(5)
        r = one(path)
        signal.alarm(0)
        signal.alarm(5)
        try:
            r["pip"] = pip_install(path)
        except Hang:
            r["pip"] = {"refused": "pip did not finish in 5 s"}
        signal.alarm(0)
        r["path"] = path
        print(json.dumps(r, sort_keys=True), flush=True)


if __name__ == "__main__":
    main()
