#!/usr/bin/env python3
"""A full check against its floor (issue 48): wheelcheck-floor inflates every entry with ISA-L and
hashes it with SHA-256, nothing else; `wheelcheck check` at full depth does that and everything
else. Both run on the same wheels in one run, interleaved, the median of RUNS (default 3) after a
warm-up; CPU is user + system of the process and its threads.

  floor.py BUILD_DIR WHEEL [WHEEL ...]    (RUNS=5 floor.py ... for more runs)

Prints a Markdown table: per wheel, the floor's and the check's CPU-seconds at -j 1 and their ratio
(goal 1.10x), and at -j 2 the check's wall against max(half the floor's CPU, the slowest single
entry) (goal 1.10x). A policy raising the entry limit is used so a 100,000-entry wheel is judged in
full rather than stopped at WC403."""
import json, os, resource, statistics, subprocess, sys, tempfile, time


def timed(argv):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, p


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    build, wheels = sys.argv[1], sys.argv[2:]
    runs = int(os.environ.get("RUNS", "3"))
    floor = os.path.join(build, "bench", "wheelcheck-floor")
    wc = os.path.join(build, "wheelcheck")
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"extends": "default", "limits": {"max_entries": 1000000}}, f)
        policy = f.name
    rows = []
    for w in wheels:
        cmds = {
            "floor1": [floor, w, "-j", "1"],
            "check1": [wc, "check", "-q", "-j", "1", "--policy", policy, w],
            "floor2": [floor, w, "-j", "2"],
            "check2": [wc, "check", "-q", "-j", "2", "--policy", policy, w],
        }
        got = {k: [] for k in cmds}
        longest = []
        for k, argv in cmds.items():  # warm-up: the page cache
            timed(argv)
        for _ in range(runs):
            for k, argv in cmds.items():
                wall, cpu, p = timed(argv)
                got[k].append((wall, cpu))
                if k.startswith("floor"):
                    longest.append(json.loads(p.stdout)["longest_entry_s"])
        med = {k: (statistics.median(x[0] for x in v), statistics.median(x[1] for x in v)) for k, v in got.items()}
        entries = json.loads(subprocess.run([floor, w], stdout=subprocess.PIPE).stdout)["entries"]
        bound = max(med["floor1"][1] / 2, statistics.median(longest))
        rows.append((os.path.basename(w), entries, med, bound))
    os.unlink(policy)
    print("| wheel | entries | floor CPU -j1 | check CPU -j1 | ratio (goal 1.10x) | check wall -j2 | "
          "max(floor CPU/2, slowest entry) | ratio (goal 1.10x) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, entries, med, bound in rows:
        r1 = med["check1"][1] / med["floor1"][1]
        r2 = med["check2"][0] / bound
        print(f"| {name} | {entries} | {med['floor1'][1]:.2f} s | {med['check1'][1]:.2f} s | {r1:.2f}x "
              f"{'met' if r1 <= 1.10 else 'MISSED'} | {med['check2'][0]:.2f} s | {bound:.2f} s | {r2:.2f}x "
              f"{'met' if r2 <= 1.10 else 'MISSED'} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
