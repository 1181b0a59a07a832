#!/usr/bin/env python3
"""A wheel of N small files (default 90,000: under wheelcheck's default 100,000-entry limit),
with a correct RECORD. Usage: make_many_entries.py OUT_DIR [N]"""
import base64, hashlib, os, sys, zipfile
out, n = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 90000
path = os.path.join(out, f"many-1.0-py3-none-any.whl")
if not os.path.exists(path):
    rows = []
    with zipfile.ZipFile(path + ".tmp", "w", zipfile.ZIP_DEFLATED) as z:
        def add(name, data):
            z.writestr(name, data)
            rows.append(f"{name},sha256={base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b'=').decode()},{len(data)}")
        for i in range(n - 3):
            add(f"many/d{i // 1000:03d}/m{i:06d}.py", b"x = %d\n" % i)
        add("many-1.0.dist-info/METADATA", b"Metadata-Version: 2.1\nName: many\nVersion: 1.0\n")
        add("many-1.0.dist-info/WHEEL", b"Wheel-Version: 1.0\nGenerator: bench\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        rows.append("many-1.0.dist-info/RECORD,,")
        z.writestr("many-1.0.dist-info/RECORD", "\n".join(rows) + "\n")
    os.rename(path + ".tmp", path)
print(path)
