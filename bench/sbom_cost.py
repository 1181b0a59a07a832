#!/usr/bin/env python3
"""What reading PEP 770 SBOMs (WC901-WC906) costs: `wheelcheck check` of pillow 13.0.0 (two SBOMs,
18 grafted libraries; pinned by sha256, downloaded into the cache once) and of the same wheel with
its sboms/ directory taken out (RECORD rewritten to match), by this build and by a baseline build of
the commit before SBOMs were read, in one run on the same files.

  sbom_cost.py CACHE CANDIDATE_BINARY BASELINE_BINARY [--runs N] [--out FILE]

Each measurement: one warm-up run, then N timed runs (median seconds). Prints a Markdown table:
the candidate against the baseline on the wheel without SBOMs (target: nothing measurable, at most
1.02x), and the candidate on pillow against the candidate on pillow without its SBOMs (target:
under 1.05x). Exit 3 when PyPI cannot be reached."""
import argparse, os, statistics, subprocess, sys, time, zipfile

here = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(here)

PILLOW = ("pillow", "pillow-13.0.0-cp312-cp312-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl",
          "42d63be3af4f9b951b199b0a9d23365d37ab14687e6d77b74940432c8515c4ca")


def without_sboms(src, dst):
    """dst: src without *.dist-info/sboms/ entries, RECORD rewritten (written once)."""
    if os.path.exists(dst):
        return dst
    tmp = dst + ".tmp"
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zout:
        record = None
        for info in zin.infolist():
            if "/sboms/" in info.filename and info.filename.split("/", 1)[0].endswith(".dist-info"):
                continue
            if info.filename.endswith(".dist-info/RECORD"):
                record = info
                continue
            zout.writestr(info, zin.read(info.filename))
        rows = [r for r in zin.read(record.filename).decode().splitlines() if "/sboms/" not in r]
        zout.writestr(record, "\n".join(rows) + "\n")
    os.replace(tmp, dst)
    return dst


def timed(cmd, runs):
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # warm-up
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cache")
    ap.add_argument("candidate")
    ap.add_argument("baseline")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--out")
    a = ap.parse_args()
    cache = os.path.join(a.cache, "sbom")
    os.makedirs(cache, exist_ok=True)
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "fetch_wheels.py"), cache, *PILLOW],
                       capture_output=True, text=True)
    if r.returncode == 3:
        print("sbom_cost: PyPI unreachable: " + r.stderr.strip(), file=sys.stderr)
        return 3
    if r.returncode != 0:
        print(r.stderr, file=sys.stderr)
        return 1
    pillow = r.stdout.strip().splitlines()[-1]
    bare = without_sboms(pillow, os.path.join(cache, "nosbom-" + os.path.basename(pillow)))
    check = lambda binary, wheel: [binary, "check", "-q", "--format", "json", wheel]
    # Interleaved rounds, so drift in the machine's speed falls on both sides alike.
    t = {k: [] for k in ("cand_pillow", "cand_bare", "base_pillow", "base_bare")}
    for _ in range(3):
        t["cand_pillow"].append(timed(check(a.candidate, pillow), a.runs))
        t["cand_bare"].append(timed(check(a.candidate, bare), a.runs))
        t["base_pillow"].append(timed(check(a.baseline, pillow), a.runs))
        t["base_bare"].append(timed(check(a.baseline, bare), a.runs))
    m = {k: statistics.median(v) for k, v in t.items()}
    lines = [
        "| pillow 13.0.0 (6.9 MB, 2 SBOMs) | seconds | ratio | target |",
        "|---|---|---|---|",
        f"| baseline, without its SBOMs | {m['base_bare']:.3f} | 1.00 | |",
        f"| this build, without its SBOMs | {m['cand_bare']:.3f} | {m['cand_bare'] / m['base_bare']:.3f} | <= 1.02 |",
        f"| this build, with its SBOMs | {m['cand_pillow']:.3f} | {m['cand_pillow'] / m['cand_bare']:.3f} (vs without) | < 1.05 |",
        f"| baseline, with its SBOMs (not read) | {m['base_pillow']:.3f} | | |",
    ]
    text = "\n".join(lines) + "\n"
    if a.out:
        open(a.out, "w").write(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
