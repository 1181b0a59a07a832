#!/usr/bin/env python3
"""Remote reads against a loopback nginx serving real wheels: what `wheelcheck check URL` costs
beside `curl -o` of the same file plus a local check, at full depth and at --depth metadata.

For each wheel: wall time (median of RUNS), bytes read (and the ratio to the file's size), HTTP
requests and new connections (from the JSON report). Prints a Markdown table.

Writes the targets (full depth: bytes read <= 1.02x the file, time <= 1.2x curl + local check)
as Markdown table rows to TARGETS.
Usage: remote.py WHEELCHECK RUNS TARGETS WHEEL...   (needs nginx and curl on PATH)
"""
import json, os, shutil, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from loopback_nginx import LoopbackNginx  # noqa: E402

wc, runs, targets_out, wheels = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
targets = []


def timed(cmd, env=None):
    start = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    return time.perf_counter() - start, p


def median_run(cmd):
    times, last = [], None
    for _ in range(runs):
        t, last = timed(cmd)
        times.append(t)
    return statistics.median(times), last


work = tempfile.mkdtemp(prefix="wheelcheck-remote-bench-")
try:
    www = os.path.join(work, "www")
    os.makedirs(www)
    for w in wheels:
        os.symlink(os.path.abspath(w), os.path.join(www, os.path.basename(w)))
    nginx = LoopbackNginx(work, www)
    port = nginx.ports[0]
    rows = []
    for w in wheels:
        name = os.path.basename(w)
        url = f"http://127.0.0.1:{port}/{name}"
        size = os.path.getsize(w)
        dl = os.path.join(work, "dl.whl")
        # Peer: curl -o, then a local check of the downloaded file.
        peer_times = []
        for _ in range(runs):
            t1, _ = timed(["curl", "-s", "-o", dl, url])
            t2, _ = timed([wc, "check", "-q", "--format", "json", dl])
            peer_times.append(t1 + t2)
        peer = statistics.median(peer_times)
        os.remove(dl)
        for depth in ("full", "metadata"):
            t, p = median_run([wc, "check", "--depth", depth, "--format", "json", url])
            try:
                rep = json.loads(p.stdout)["wheels"][0]
            except (ValueError, KeyError, IndexError):
                rows.append(f"| {name} | {depth} | failed: {p.stderr.strip()[:120]} | | | | | |")
                continue
            read = rep.get("bytes_read", 0)
            if depth == "full":
                targets.append(f"| {name} (loopback) | full remote check reads <= 1.02x the file | {read / size:.3f}x "
                               f"| {'met' if read <= 1.02 * size else 'MISSED'} |")
                targets.append(f"| {name} (loopback) | full remote check within 1.2x of curl -o + local check "
                               f"| {t / peer:.2f}x | {'met' if t <= 1.2 * peer else 'MISSED'} |")
            rows.append(f"| {name} | {depth} | {size / 1e6:.1f} MB | {read / 1e6:.2f} MB ({read / size:.3f}x) "
                        f"| {rep.get('requests', 0)} | {rep.get('connections', 0)} | {t:.2f} s "
                        f"| {peer:.2f} s ({t / peer:.2f}x) |")
    nginx.stop()
    print("| wheel | depth | size | bytes read | requests | connections | wheelcheck URL | curl -o + local check |")
    print("|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    with open(targets_out, "w") as f:
        f.write("".join(t + "\n" for t in targets))
finally:
    shutil.rmtree(work, ignore_errors=True)
