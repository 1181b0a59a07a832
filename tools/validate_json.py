#!/usr/bin/env python3
"""Validates JSON files against a JSON Schema with check-jsonschema (tools/schema_venv.py).
Exit 0 valid, 1 invalid, 77 skipped (check-jsonschema cannot be installed here).
Usage: validate_json.py SCHEMA FILE..."""
import os, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import schema_venv

bindir = schema_venv.ensure()
if bindir is None:
    sys.exit(77)
r = subprocess.run([os.path.join(bindir, "check-jsonschema"), "--schemafile", sys.argv[1], *sys.argv[2:]], capture_output=True, text=True)
print(r.stdout.strip() or r.stderr.strip())
sys.exit(0 if r.returncode == 0 else 1)
