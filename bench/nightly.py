#!/usr/bin/env python3
"""A nightly at scale (issue 48, part 3): `wheelcheck check` over 50, 100, 200 and 400 wheels, from a
folder and from a PEP 503 index page served on loopback (tests/tools/range_server.py),
measuring wall, CPU (user + system), max RSS and the cost per wheel. The wheels are the real ones
the tests fetch (tests/real_wheels.json's small ones into ~/.cache/wheelcheck-tests/real, fetched
here if missing; or the *.whl of WHEELS_DIR), repeated: copy k of a wheel lives
in its own folder (r000/, r001/, ...), so every path is distinct.

  nightly.py BUILD_DIR [WHEELS_DIR]

Prints a Markdown table. The goal is an RSS that does not grow with the number of wheels;
bench/README says how far it is."""
import glob, json, os, resource, shutil, subprocess, sys, tempfile, time


def measure(argv):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    p = subprocess.run(["/usr/bin/time", "-f", "%M"] + argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    rss_kb = int(p.stderr.strip().splitlines()[-1])
    if p.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv[:4])}...: exit {p.returncode}: {p.stderr[-2000:]}")
    return wall, cpu, rss_kb / 1024, json.loads(p.stdout)


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    wc = os.path.join(sys.argv[1], "wheelcheck")
    src = sys.argv[2] if len(sys.argv) > 2 else os.path.expanduser("~/.cache/wheelcheck-tests/real")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if len(sys.argv) <= 2:  # the tests' small real wheels, fetched (once) as the tests fetch them
        manifest = json.load(open(os.path.join(root, "tests", "real_wheels.json")))
        args = []
        for f in manifest["files"]:
            if not f.get("large") and f["file"].endswith(".whl"):
                args += [f["project"], f["file"], f["sha256"]]
        subprocess.run([sys.executable, os.path.join(root, "tools", "fetch_wheels.py"), src] + args,
                       stdout=subprocess.DEVNULL, check=False)
    real = sorted(p for p in glob.glob(os.path.join(src, "*.whl")) if os.path.getsize(p) < 50 << 20)
    if not real:
        print(f"no wheels in {src} (run the real-wheel tests once, or give WHEELS_DIR)", file=sys.stderr)
        return 2
    work = tempfile.mkdtemp(prefix="wc-nightly-")
    try:
        counts = (50, 100, 200, 400)
        files = []
        for k in range(max(counts)):
            w = real[k % len(real)]
            d = os.path.join(work, "files", f"r{k // len(real):03d}")
            os.makedirs(d, exist_ok=True)
            dst = os.path.join(d, os.path.basename(w))
            if not os.path.exists(dst):
                os.link(w, dst) if os.stat(w).st_dev == os.stat(work).st_dev else shutil.copy(w, dst)
            files.append(dst)
        # One index page per count, each link to its own copy.
        for n in counts:
            page = os.path.join(work, f"simple{n}", "all")
            os.makedirs(page)
            with open(os.path.join(page, "index.html"), "w") as f:
                for p in files[:n]:
                    rel = os.path.relpath(p, work)
                    f.write(f'<a href="/{rel}">{os.path.basename(p)}</a>\n')
        server = subprocess.Popen([sys.executable, os.path.join(root, "tests", "tools", "range_server.py"), "0"],
                                  cwd=work, stdout=subprocess.PIPE, text=True)
        port = int(server.stdout.readline())
        print(f"{len(real)} distinct real wheels, {sum(os.path.getsize(p) for p in files) / 1e6:.0f} MB in the {max(counts)}", file=sys.stderr)
        print("| input | wheels | MB | wall | CPU | max RSS | wall per wheel | CPU per wheel |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        growth = []
        for where in ("folder", "index page"):
            rss_at = {}
            for n in counts:
                if where == "folder":
                    argv = [wc, "check", "-q", "--format", "json"] + files[:n]
                else:
                    argv = [wc, "check", "-q", "--format", "json",
                            f"http://127.0.0.1:{port}/simple{n}/all/"]
                measure(argv)  # warm-up
                wall, cpu, rss, report = measure(argv)
                got = len(report["wheels"])
                if got != n:
                    raise SystemExit(f"{where} {n}: the report has {got} wheels")
                rss_at[n] = rss
                mb = sum(os.path.getsize(p) for p in files[:n]) / 1e6
                print(f"| {where} | {n} | {mb:.0f} | {wall:.2f} s | {cpu:.2f} s | {rss:.0f} MB | "
                      f"{1000 * wall / n:.1f} ms | {1000 * cpu / n:.1f} ms |")
            lo, hi = counts[1], counts[-1]
            growth.append(f"{where} {(rss_at[hi] - rss_at[lo]) / (hi - lo):.3f} MB per wheel from {lo} to {hi}")
        print("\nRSS growth: " + "; ".join(growth) + ".")
        server.terminate()
        server.wait()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
