#!/usr/bin/env python3
"""Issue 28's resource classes, each at three sizes: wheelcheck's time and peak RSS must grow
linearly (or not at all) with the input, and stay near the cost of merely reading the archive
(`unzip -t`, measured on the same file in the same run). Inputs come from tools/hostile_inputs.py.

  hostile.py WHEELCHECK WORK_DIR   prints a Markdown table

Columns: N, wheelcheck's time and peak RSS, unzip -t's time on the same wheel, and the growth of
wheelcheck's time and RSS per doubling of N (1.0-2.0 is linear or better; 4.0 would be quadratic)."""
import os, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
GEN = os.path.join(HERE, "..", "tools", "hostile_inputs.py")
CLASSES = [  # (class, sizes, what the input is)
    ("verneed", [16384, 32768, 65535], "N version needs sharing one chain of N names"),
    ("dynsym", [10922, 21844, 43689], "N undefined symbols naming one 8 MiB string"),
    ("pe", [16384, 32768, 65535], "4,095 import descriptors sharing one table of N names"),
    ("macho", [131072, 262144, 524288], "N nlist entries naming one 8 MiB string"),
    ("mangled", [43750, 87500, 175000], "one mangled name of N nested names (8 bytes each)"),
    ("fatbin", [65536, 131072, 262144], "a fatbin of N entries"),
    ("glob", [4, 8, 16], "a forbid glob of N '**a' then '**b', against 400-byte names"),
]


def measure(cmd):
    """(seconds, peak RSS in MB) of one run, through /usr/bin/time."""
    with tempfile.NamedTemporaryFile("r") as t:
        start = time.monotonic()
        subprocess.run(["/usr/bin/time", "-o", t.name, "-f", "%M"] + cmd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=600)
        took = time.monotonic() - start
        rss = int(t.read().strip().splitlines()[-1]) / 1024
    return took, rss


def main():
    wc, work = sys.argv[1], sys.argv[2]
    print("| class | input | N | wheelcheck s | peak RSS MB | unzip -t s | time x per doubling | RSS x per doubling |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for kind, sizes, what in CLASSES:
        prev = None
        for n in sizes:
            out = os.path.join(work, f"{kind}-{n}")
            path = subprocess.run([sys.executable, GEN, kind, str(n), out], capture_output=True, text=True,
                                  check=True).stdout.strip()
            if kind == "glob":
                wheel = next(os.path.join(out, f) for f in os.listdir(out) if f.endswith(".whl"))
                cmd = [wc, "check", "-q", "--policy", path, wheel]
            else:
                wheel = path
                cmd = [wc, "check", "-q", wheel]
            measure(cmd)  # warm-up
            t, rss = min(measure(cmd) for _ in range(3))
            unzip_t = min(measure(["unzip", "-tqq", wheel])[0] for _ in range(3))
            growth_t = f"{t / prev[0]:.2f}" if prev and prev[0] > 0.05 else "-"
            growth_m = f"{rss / prev[1]:.2f}" if prev else "-"
            print(f"| {kind} | {what} | {n} | {t:.2f} | {rss:.0f} | {unzip_t:.2f} | {growth_t} | {growth_m} |", flush=True)
            prev = (t, rss)
    return 0


if __name__ == "__main__":
    sys.exit(main())
