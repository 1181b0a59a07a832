#!/usr/bin/env python3
"""What verifying PEP 740 attestations costs (WC911-WC913): `wheelcheck check` of a 100-file release,
each file a copy of pypi-attestations' production CircleCI-published wheel with its provenance
object and publish attestation beside it (two attestations per file; the assets are downloaded into
the cache by name and sha256 once), with `--trusted-root` (every attestation verified against
sigstore 4.5.1's production trust root) and without it (the attestations read, not verified), in one
run on the same files.

  provenance_cost.py CACHE BINARY [--files N] [--runs N] [--out FILE]

Prints a Markdown table: seconds with and without verification, the milliseconds each attestation
adds (target: at most 5 ms, the reference pypi-attestations takes 1.2-3.4 ms warm in process), and
the 100-file release (target: under 1 s). Exit 3 when PyPI cannot be reached."""
import argparse, os, shutil, statistics, subprocess, sys, time

here = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(here)
WHEEL = "circleci_sign_publish_example-0.0.1.dev137-py3-none-any.whl"


def timed(cmd, runs):
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # warm-up
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - t)
        if r.returncode != 0:
            raise SystemExit(f"provenance_cost: {' '.join(cmd[:4])} ... exited {r.returncode}")
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cache")
    ap.add_argument("binary")
    ap.add_argument("--files", type=int, default=100)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--out")
    a = ap.parse_args()
    cache = os.path.join(a.cache, "sigstore")
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "tools", "sigstore_assets.py"), cache],
                       capture_output=True, text=True)
    if r.returncode == 3:
        print("provenance_cost: PyPI unreachable: " + r.stderr.strip(), file=sys.stderr)
        return 3
    if r.returncode != 0:
        print(r.stderr, file=sys.stderr)
        return 1
    assets, roots = r.stdout.strip().splitlines()[:2]
    root = os.path.join(roots, "https%3A%2F%2Ftuf-repo-cdn.sigstore.dev", "trusted_root.json")
    release = os.path.join(a.cache, "provenance-release")
    shutil.rmtree(release, ignore_errors=True)
    wheels = []
    for i in range(a.files):  # one folder each: every copy keeps the name its statement names
        d = os.path.join(release, str(i))
        os.makedirs(d)
        for suffix in ("", ".provenance", ".publish.attestation"):
            shutil.copy(os.path.join(assets, WHEEL + suffix), d)
        wheels.append(os.path.join(d, WHEEL))
    base = [a.binary, "check", "-q", "--format", "json"]
    t = {"with": [], "without": []}
    for _ in range(3):  # interleaved rounds: drift in the machine's speed falls on both sides alike
        t["with"].append(timed(base + ["--trusted-root", root] + wheels, a.runs))
        t["without"].append(timed(base + wheels, a.runs))
    m = {k: statistics.median(v) for k, v in t.items()}
    attestations = 2 * a.files
    per = (m["with"] - m["without"]) / attestations * 1000
    lines = [
        f"| {a.files} files, {attestations} attestations | seconds | target |",
        "|---|---|---|",
        f"| attestations read, not verified | {m['without']:.3f} | |",
        f"| every attestation verified (--trusted-root) | {m['with']:.3f} | < 1 s |",
        f"| added per attestation, on {os.cpu_count()} cores | {per:.2f} ms | <= 5 ms |",
    ]
    text = "\n".join(lines) + "\n"
    if a.out:
        open(a.out, "w").write(text)
    print(text)
    shutil.rmtree(release, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
