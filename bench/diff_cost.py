#!/usr/bin/env python3
"""What `wheelcheck diff` and `check --baseline` cost (issue 47), against checking the same wheels
plainly in the same run, and how large a wheel's `release` member (the baseline) is.

  diff_cost.py WHEELCHECK WHEEL [--runs N] [--out TABLE.md]

Times (median of N after a warm-up, max RSS from /usr/bin/time):
  check both   wheelcheck check WHEEL WHEEL' (the wheel and a hard-linked copy: two wheels of its size)
  diff         wheelcheck diff WHEEL WHEEL'
  check        wheelcheck check WHEEL
  check+base   wheelcheck check WHEEL --baseline REPORT (REPORT: the first check's JSON)
Targets: diff <= 1.2x check both; check --baseline <= 1.05x check; the release member <= 2 MB."""
import argparse, json, os, statistics, subprocess, sys, tempfile


def timed(cmd):
    with tempfile.NamedTemporaryFile("r") as t:
        p = subprocess.run(["/usr/bin/time", "-f", "%e %M", "-o", t.name] + cmd, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        if p.returncode not in (0, 1):
            raise SystemExit(f"diff_cost: {' '.join(cmd)} exited {p.returncode}")
        secs, rss = t.read().split()[-2:]
        return float(secs), int(rss)


def measure(cmd, runs):
    timed(cmd)
    got = [timed(cmd) for _ in range(runs)]
    return statistics.median(g[0] for g in got), max(g[1] for g in got)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("wheelcheck")
    ap.add_argument("wheel")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--out")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        twin_dir = os.path.join(d, "twin")
        os.mkdir(twin_dir)
        twin = os.path.join(twin_dir, os.path.basename(a.wheel))
        try:
            os.link(a.wheel, twin)
        except OSError:
            subprocess.run(["cp", a.wheel, twin], check=True)
        report = os.path.join(d, "report.json")
        subprocess.run([a.wheelcheck, "check", "-q", a.wheel, "--report", "json:" + report],
                       stdout=subprocess.DEVNULL)
        member = json.load(open(report))["wheels"][0]["release"]
        member_bytes = len(json.dumps(member))
        rows = {
            "check both": measure([a.wheelcheck, "check", "-q", a.wheel, twin], a.runs),
            "diff": measure([a.wheelcheck, "diff", a.wheel, twin], a.runs),
            "check": measure([a.wheelcheck, "check", "-q", a.wheel], a.runs),
            "check --baseline": measure([a.wheelcheck, "check", "-q", a.wheel, "--baseline", report], a.runs),
        }
    r_diff = rows["diff"][0] / rows["check both"][0]
    r_base = rows["check --baseline"][0] / rows["check"][0]
    lines = [f"### diff and --baseline: `{os.path.basename(a.wheel)}`", "",
             "| command | seconds | max RSS (MB) |", "|---|---:|---:|"]
    for k, (s, rss) in rows.items():
        lines.append(f"| {k} | {s:.2f} | {rss / 1024:.0f} |")
    lines += ["",
              f"- diff / check both: {r_diff:.2f}x (target <= 1.2x: {'met' if r_diff <= 1.2 else 'MISSED'})",
              f"- check --baseline / check: {r_base:.2f}x (target <= 1.05x: {'met' if r_base <= 1.05 else 'MISSED'})",
              f"- the wheel's release member: {member_bytes / 1e6:.2f} MB, {len(member.get('binaries', []))} binaries, "
              f"{sum(b.get('exports', {}).get('count', 0) for b in member.get('binaries', []))} exported names "
              f"(target <= 2 MB: {'met' if member_bytes <= 2e6 else 'MISSED'})", ""]
    text = "\n".join(lines)
    if a.out:
        open(a.out, "w").write(text + "\n")
    print(text)


if __name__ == "__main__":
    sys.exit(main())
