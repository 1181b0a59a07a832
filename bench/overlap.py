#!/usr/bin/env python3
"""Check while downloading (issue 48, part 1): `wheelcheck check URL` at full depth against the
download alone (`curl -o /dev/null`) and the local check alone, from a loopback nginx serving the
wheel at full speed and limited to 100 MB/s (`limit_rate`, per connection). Goal: the remote check's
wall within 1.05x of max(download, local check); at 100 MB/s within 1.05x of the download. Then two
copies of the wheel in one run at `-j 2` (two URLs), against both downloads at once (two curls)
and the local check of both at `-j 2`: the transfers and checks of different wheels overlap too.
A second binary (the build before, BASELINE) is timed beside it in the same run when given.
Median of RUNS (3).

  overlap.py WHEELCHECK WHEEL [BASELINE]      (needs nginx and curl on PATH)

Prints a Markdown table: per server and number of wheels, the download, the local check, each
binary's remote check (wall, ratio to the bound, max RSS, bytes read)."""
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
        # The second copy: its own path on the server, and locally its own folder (distinct paths).
        os.makedirs(os.path.join(www, "b"))
        os.symlink(os.path.abspath(wheel), os.path.join(www, "b", name))
        os.makedirs(os.path.join(work, "b"))
        second = os.path.join(work, "b", name)
        try:  # a link of its own, not a symlink: wheelcheck takes a symlink's target as the same file
            os.link(wheel, second)
        except OSError:
            shutil.copy(wheel, second)
        nginx = LoopbackNginx(work, www, rates=(None, 100000000))
        fast, slow = nginx.ports
        local = {1: median([wc, "check", "-q", wheel], runs)[0],
                 2: median([wc, "check", "-q", "-j", "2", wheel, second], runs)[0]}
        size = os.path.getsize(wheel)
        print(f"{name}, {size / 1e6:.0f} MB; local check alone {local[1]:.2f} s, two copies at -j 2 {local[2]:.2f} s "
              f"(median of {runs})\n")
        print("| server | wheels | download alone | binary | remote check | bound: max(download, local check) "
              "| ratio (goal 1.05x) | max RSS | bytes read |")
        print("|---|---:|---:|---|---:|---:|---:|---:|---:|")
        for label, port in (("loopback", fast), ("100 MB/s", slow)):
            for count in (1, 2):
                urls = [f"http://127.0.0.1:{port}/{name}", f"http://127.0.0.1:{port}/b/{name}"][:count]
                # Both downloads at once, each on its own connection (nginx's limit_rate is per
                # connection), as two CI steps would fetch them.
                curl = ["sh", "-c", " & ".join(f"curl -s -o /dev/null {u}" for u in urls) + " & wait"]
                dl, _, _ = median(curl, runs)
                bound = max(dl, local[count])
                for which, binary in (("this build", wc), ("the build before", baseline)):
                    if not binary:
                        continue
                    t, rss, p = median([binary, "check", "--format", "json"] + (["-j", "2"] if count > 1 else []) + urls,
                                          runs)
                    try:
                        read = sum(w.get("bytes_read", 0) for w in json.loads(p.stdout)["wheels"])
                    except (ValueError, KeyError, TypeError):
                        read = 0
                    ratio = t / bound
                    print(f"| {label} | {count} | {dl:.2f} s | {which} | {t:.2f} s | {bound:.2f} s | {ratio:.2f}x "
                          f"{'met' if ratio <= 1.05 else 'MISSED'} | {rss:.0f} MB | {read / (size * count):.3f}x |")
        nginx.stop()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
