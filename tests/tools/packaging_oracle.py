"""Reads wheel filenames (one per line, UTF-8) and prints, per line, a JSON verdict from
packaging.utils.parse_wheel_filename: the reference parser pip and other installers use."""
import json
import sys

from packaging.utils import InvalidWheelFilename, canonicalize_name, parse_wheel_filename
from packaging.version import InvalidVersion

for line in sys.stdin.read().split("\n")[:-1]:
    try:
        name, version, build, tags = parse_wheel_filename(line)
        out = {
            "ok": True,
            "name": str(name),
            "version": str(version),
            "build": [str(build[0]), build[1]] if build else None,
            "tags": sorted(str(t) for t in tags),
        }
    except (InvalidWheelFilename, InvalidVersion) as e:
        out = {"ok": False, "error": str(e)}
    print(json.dumps(out))
