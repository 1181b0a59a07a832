#!/usr/bin/env python3
"""The module graph as docs/DESIGN.md draws it: each directory of src/wheelcheck may include only from
the layers below it (and itself). Prints every include that breaks the order, and any cycle."""
import os, re, sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
# Lower layers first; a module may include from its own layer only if it is itself.
LAYERS = [["util"], ["catalog"], ["io", "wheel", "policy"], ["binary"], ["provenance"], ["facts"], ["rules"], ["report"],
          ["pipeline"], ["cli_support"], ["cli"], ["smoke"]]
rank = {m: i for i, layer in enumerate(LAYERS) for m in layer}
inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"')

def module_of(path):
    rel = os.path.relpath(path, os.path.join(ROOT, "src"))
    parts = rel.split(os.sep)
    return parts[1] if parts[0] == "wheelcheck" else parts[0]

bad, edges = [], set()
for base, _, files in os.walk(os.path.join(ROOT, "src")):
    for f in files:
        if not f.endswith((".h", ".cc")):
            continue
        path = os.path.join(base, f)
        src = module_of(path)
        for line in open(path, encoding="utf-8"):
            m = inc.match(line)
            if not m or "/" not in m.group(1):
                continue
            dst = m.group(1).split("/")[0]
            if dst not in rank or dst == src:
                continue
            edges.add((src, dst))
            if src not in rank or rank[dst] >= rank[src]:
                bad.append(f"{os.path.relpath(path, ROOT)}: includes {m.group(1)} ({src} may not depend on {dst})")
for b in sorted(bad):
    print(b)
print(f"{len(edges)} module edges, {len(bad)} against the layering")
sys.exit(1 if bad else 0)
