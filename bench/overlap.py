#!/usr/bin/env python3
"""Check while downloading (issue 48, part 1): `wheelcheck check URL` at full depth against the
download alone (`curl -o /dev/null`) and the local check alone, from a loopback nginx serving the
wheel at full speed and limited to 100 MB/s (`limit_rate`). Goal: the remote check's wall within
1.05x of max(download, local check); at 100 MB/s within 1.05x of the download. A second binary
(the build before, BASELINE) is timed beside it in the same run when given. Median of RUNS (3).

  overlap.py WHEELCHECK WHEEL [BASELINE]      (needs nginx and curl on PATH)

Prints a Markdown table: per server, the download, the local check, each binary's remote check
(wall, ratio to the bound, max RSS, bytes read)."""
import json, os, shutil, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from loopback_nginx import LoopbackNginx  # noqa: E402


def timed(cmd):
    start = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, capture_output=True, text=True)
    wall = time.perf_counter() - start
    rss = int(p.stderr.strip().splitlines()[-1]) / 1024 if p.stderr.strip() else 0
    return wall, rss, p


def median(cmd, runs):
    got = [timed(cmd) for _ in range(runs)]
    return statistics.median(g[0] for g in got), max(g[1] for g in got), got[-1][2]


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    wc, wheel = sys.argv[1], sys.argv[2]
    baseline = sys.argv[3] if len(sys.argv) > 3 else ""
    runs = int(os.environ.get("RUNS", "3"))
    work = tempfile.mkdtemp(prefix="wheelcheck-overlap-")
    try:
        www = os.path.join(work, "www")
        os.makedirs(www)
        name = os.path.basename(wheel)
        os.symlink(os.path.abspath(wheel), os.path.join(www, name))
        nginx = LoopbackNginx(work, www, rates=(None, 100000000))
        fast, slow = nginx.ports
        local, _, _ = median([wc, "check", "-q", wheel], runs)
        size = os.path.getsize(wheel)
        print(f"{name}, {size / 1e6:.0f} MB; local check alone {local:.2f} s (median of {runs})\n")
        print("| server | download alone | binary | remote check | bound: max(download, local check) | ratio (goal 1.05x) "
              "| max RSS | bytes read |")
        print("|---|---:|---|---:|---:|---:|---:|---:|")
        for label, port in (("loopback", fast), ("100 MB/s", slow)):
            url = f"http://127.0.0.1:{port}/{name}"
            dl, _, _ = median(["curl", "-s", "-o", "/dev/null", url], runs)
            bound = max(dl, local)
            for which, binary in (("this build", wc), ("the build before", baseline)):
                if not binary:
                    continue
                t, rss, p = median([binary, "check", "--format", "json", url], runs)
                try:
                    read = json.loads(p.stdout)["wheels"][0].get("bytes_read", 0)
                except (ValueError, KeyError, IndexError):
                    read = 0
                ratio = t / bound
                print(f"| {label} | {dl:.2f} s | {which} | {t:.2f} s | {bound:.2f} s | {ratio:.2f}x "
                      f"{'met' if ratio <= 1.05 else 'MISSED'} | {rss:.0f} MB | {read / size:.3f}x |")
        nginx.stop()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
