#!/usr/bin/env python3
"""WC511 beside abi3audit on the same abi3 wheels: per extension, does each flag it, and how many
symbols; and the time each takes for the whole set.

  abi3_parity.py WHEELCHECK ABI3AUDIT WHEEL... > table.md

Prints a Markdown table and a summary line; exits 1 when the tools disagree on a binary in a way
that is not one of wheelcheck's documented differences (exported own Py* symbols, which
abi3audit counts and wheelcheck does not)."""
import json, os, re, subprocess, sys, time


def abi3audit(tool, wheel):
    t = time.perf_counter()
    p = subprocess.run([tool, "--report", wheel], capture_output=True, text=True)
    dt = time.perf_counter() - t
    out = {}
    try:
        doc = json.loads(p.stdout[p.stdout.index("{"):])
    except ValueError:
        return None, dt
    for spec in doc["specs"].values():
        for so in spec.get("wheel", []):
            r = so["result"]
            syms = {s["name"] if isinstance(s, dict) else s for s in r.get("non_abi3_symbols", [])}
            syms |= set(r.get("future_abi3_objects", {}))
            out[os.path.basename(so["name"])] = syms
    return out, dt


def wheelcheck(tool, wheel):
    t = time.perf_counter()
    p = subprocess.run([tool, "check", "--json", "--select", "WC511", wheel], capture_output=True, text=True)
    dt = time.perf_counter() - t
    out = {}
    for w in json.loads(p.stdout)["wheels"]:
        for f in w.get("findings", []):
            m = re.match(r"imports (\d+) Python C-API symbol", f["message"])
            if f["rule"] == "WC511" and m:
                out[os.path.basename(f["entry"])] = int(m.group(1))
    return out, dt


def main():
    wc, audit, wheels = sys.argv[1], sys.argv[2], sys.argv[3:]
    rows, t_wc, t_audit, disagree = [], 0.0, 0.0, 0
    for w in wheels:
        a, dta = abi3audit(audit, w)
        c, dtc = wheelcheck(wc, w)
        t_audit += dta
        t_wc += dtc
        if a is None:
            rows.append((os.path.basename(w), "-", "abi3audit failed", ""))
            continue
        for name in sorted(set(a) | set(c)):
            na, nc = len(a.get(name, ())), c.get(name, 0)
            if na == 0 and nc == 0:
                continue
            same = (na > 0) == (nc > 0)
            if not same:
                disagree += 1
            rows.append((os.path.basename(w), name, f"{na}", f"{nc}" + ("" if same else "  (differs)")))
    print("| wheel | extension | abi3audit symbols | wheelcheck WC511 symbols |")
    print("|---|---|---|---|")
    for r in rows:
        print("| " + " | ".join(r) + " |")
    print(f"\n{len(wheels)} wheels: abi3audit {t_audit:.2f} s, wheelcheck {t_wc:.2f} s "
          f"({t_audit / max(t_wc, 1e-9):.1f}x); {disagree} binaries judged differently")
    return 1 if disagree else 0


if __name__ == "__main__":
    sys.exit(main())
