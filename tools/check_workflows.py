#!/usr/bin/env python3
"""Validates the GitHub workflows and the composite action (a CTest):

1. against the schemas check-jsonschema vendors (vendor.github-workflows, vendor.github-actions),
   offline once installed (tools/schema_venv.py installs it from PyPI into a cached venv);
2. no `${{ ... }}` expression inside any `run:` script (inputs pass through `env:`; an expression
   in a script is a script-injection hole);
3. the release gate's default `wheelcheck==X` pin is this project's version.

Exit 0 valid, 1 invalid, 77 skipped (check-jsonschema cannot be installed here: no network).
Usage: check_workflows.py SOURCE_DIR"""
import os, re, subprocess, sys

root = sys.argv[1]
files = sorted(os.path.join(root, ".github", "workflows", f) for f in os.listdir(os.path.join(root, ".github", "workflows"))
               if f.endswith((".yml", ".yaml")))
action = os.path.join(root, "action.yml")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import schema_venv

bindir = schema_venv.ensure()
if bindir is None:
    sys.exit(77)
py = os.path.join(bindir, "python")

failed = False
for schema, targets in (("vendor.github-workflows", files), ("vendor.github-actions", [action])):
    r = subprocess.run([os.path.join(bindir, "check-jsonschema"), "--builtin-schema", schema, *targets],
                       capture_output=True, text=True)
    print(r.stdout.strip() or r.stderr.strip())
    failed |= r.returncode != 0

# YAML through the venv's ruamel.yaml (a check-jsonschema dependency), so the checks see what
# GitHub sees (block scalars, flow mappings).
script = r'''
import json, sys
from ruamel.yaml import YAML
out = []
def walk(node, where):
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "run" and isinstance(v, str):
                out.append((where + "/run", v))
            walk(v, where + "/" + str(k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            walk(v, where + "/" + str(i))
for path in sys.argv[1:]:
    doc = YAML(typ="safe").load(open(path))
    walk(doc, path)
    if path.endswith("release-gate.yml"):
        out.append(("pin", doc["on"]["workflow_call"]["inputs"]["wheelcheck"]["default"]))
print(json.dumps(out))
'''
import json
r = subprocess.run([py, "-c", script, *files, action], capture_output=True, text=True)
if r.returncode != 0:
    print(r.stderr)
    sys.exit(1)
version = re.search(r"project\(wheelcheck VERSION ([0-9.]+)", open(os.path.join(root, "CMakeLists.txt")).read()).group(1)
for where, text in json.loads(r.stdout):
    if where == "pin":
        if text != f"wheelcheck=={version}":
            print(f"release-gate.yml: default wheelcheck pin {text!r}, the project is {version}")
            failed = True
    elif "${{" in text:
        print(f"{where}: an expression inside a run: script (pass it through env:)")
        failed = True
print("workflows and action: " + ("INVALID" if failed else "valid"))
sys.exit(1 if failed else 0)
