#!/usr/bin/env python3
"""The peer a release engineer would write: inflate every entry with zipfile, hash it with hashlib,
compare with RECORD (hash and size). Exit 1 on any mismatch. Usage: verify_record.py WHEEL..."""
import base64, csv, hashlib, io, sys, zipfile

def verify(path):
    bad = 0
    with zipfile.ZipFile(path) as z:
        record = next(n for n in z.namelist() if n.endswith(".dist-info/RECORD"))
        rows = {r[0]: r for r in csv.reader(io.TextIOWrapper(z.open(record), "utf-8")) if r}
        for info in z.infolist():
            if info.is_dir() or info.filename == record:
                continue
            h, n = hashlib.sha256(), 0
            with z.open(info) as f:
                while chunk := f.read(1 << 20):
                    h.update(chunk); n += len(chunk)
            row = rows.get(info.filename)
            digest = "sha256=" + base64.urlsafe_b64encode(h.digest()).rstrip(b"=").decode()
            if not row or row[1] != digest or row[2] != str(n):
                bad += 1
    return bad

sys.exit(1 if sum(verify(p) for p in sys.argv[1:]) else 0)
