#!/usr/bin/env python3
"""Issue 28's resource classes, each at three sizes: wheelcheck's time and peak RSS must grow
linearly (or not at all) with the input, and stay near the cost of merely reading the archive
(`unzip -t`, measured on the same file in the same run). Inputs come from tools/hostile_inputs.py.

  hostile.py WHEELCHECK WORK_DIR   prints a Markdown table

Columns: N, wheelcheck's time and peak RSS, unzip -t's time on the same wheel, and the growth of
wheelcheck's time and RSS per doubling of N (1.0-2.0 is linear or better; 4.0 would be quadratic)."""
import os, shutil, socket, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
GEN = os.path.join(HERE, "..", "tools", "hostile_inputs.py")
CLASSES = [  # (class, sizes, what the input is)
    ("verneed", [16384, 32768, 65535], "N version needs sharing one chain of N names"),
    ("dynsym", [10922, 21844, 43689], "N undefined symbols naming one 8 MiB string"),
    ("pe", [16384, 32768, 65535], "4,095 import descriptors sharing one table of N names"),
    ("macho", [131072, 262144, 524288], "N nlist entries naming one 8 MiB string"),
    ("mangled", [43750, 87500, 175000], "one mangled name of N nested names (8 bytes each)"),
    ("fatbin", [65536, 131072, 262144], "a fatbin of N entries"),
    ("paths", [2000, 4000, 8000], "N files, each 490 directories deep in its own directory"),
    ("glob", [4, 8, 16], "a forbid glob of N '**a' then '**b', against 400-byte names"),
    ("index", [25000, 50000, 100000], "an index page of N links to wheels that do not exist (404)"),
    ("spdxids", [15000, 30000, 60000], "an SPDX SBOM of N files sharing one SPDXID, N CONTAINS"),
    ("spdxchain", [15000, 30000, 60000], "an SPDX SBOM whose N packages form one DEPENDS_ON chain"),
    ("evidence", [25000, 50000, 100000], "a CycloneDX component with N evidence occurrences"),
    ("attest", [250000, 500000, 1000000], "a provenance file of N attestations ({}, 3 bytes each)"),
    ("extends", [8, 16, 32], "a policy extends diamond N levels deep (2^N paths)"),
]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


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
    # The index row's links lead to a loopback nginx that answers 404 (the Python fault server costs
    # 20 ms a request itself, which would drown what is measured).
    port, conf = free_port(), os.path.join(work, "nginx.conf")
    with open(conf, "w") as f:
        f.write(f"worker_processes 1; pid {work}/nginx.pid; error_log {work}/nginx.err; daemon on;\n"
                f"events {{ worker_connections 1024; }}\n"
                f"http {{ access_log off; server {{ listen 127.0.0.1:{port}; root {work}; }} }}\n")
    nginx = subprocess.run(["nginx", "-c", conf, "-p", work], capture_output=True) if shutil.which("nginx") else None
    try:
        run_classes(wc, work, port if nginx and nginx.returncode == 0 else 0)
    finally:
        if nginx and nginx.returncode == 0:
            subprocess.run(["nginx", "-c", conf, "-p", work, "-s", "stop"], capture_output=True)
    return 0


def command_for(wc, work, port, kind, n):
    """(the wheelcheck command for CLASS at size N, the wheel unzip -t reads or None)."""
    if kind == "index":
        os.makedirs(os.path.join(work, f"idx{n}"), exist_ok=True)
        with open(os.path.join(work, f"idx{n}", "index.html"), "w") as f:
            f.write("".join(f'<a href="/none/p-{i}-py3-none-any.whl"></a>\n' for i in range(n)))
        return [wc, "check", "-q", f"http://127.0.0.1:{port}/idx{n}/"], None
    out = os.path.join(work, f"{kind}-{n}")
    path = subprocess.run([sys.executable, GEN, kind, str(n), out], capture_output=True, text=True,
                          check=True).stdout.strip()
    if kind in ("glob", "extends"):
        wheel = next(os.path.join(out, f) for f in os.listdir(out) if f.endswith(".whl"))
        return [wc, "check", "-q", "--policy", path, wheel], wheel
    return [wc, "check", "-q", path], path


def run_classes(wc, work, port):
    for kind, sizes, what in CLASSES:
        prev = None
        for n in sizes:
            if kind == "index" and not port:
                print(f"| {kind} | {what} | {n} | (no nginx) | | | | |")
                continue
            cmd, wheel = command_for(wc, work, port, kind, n)
            measure(cmd)  # warm-up
            t, rss = min(measure(cmd) for _ in range(3))
            unzip_t = f"{min(measure(['unzip', '-tqq', wheel])[0] for _ in range(3)):.2f}" if wheel else "-"
            growth_t = f"{t / prev[0]:.2f}" if prev and prev[0] > 0.05 else "-"
            growth_m = f"{rss / prev[1]:.2f}" if prev else "-"
            print(f"| {kind} | {what} | {n} | {t:.2f} | {rss:.0f} | {unzip_t} | {growth_t} | {growth_m} |", flush=True)
            prev = (t, rss)


if __name__ == "__main__":
    sys.exit(main())
