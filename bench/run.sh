#!/usr/bin/env bash
# wheelcheck against the tools a release engineer would otherwise run, in one run, on the same files.
#
# Files (downloaded or built into a cache at bench time, never committed):
#   torch       the real torch CUDA wheel for linux x86_64 (PyPI, pinned by sha256)
#   cublas      one of its large nvidia-* dependency wheels (PyPI, pinned by sha256)
#   packed      the CUDA toolkit's largest libraries packed into one wheel (skipped without a toolkit)
#   many        90,000 small files (under the default 100,000-entry limit)
# Commands (each: one warm-up run, then the median of BENCH_RUNS runs; max RSS of those runs):
#   unzip -t                        inflate + CRC-32 of every entry: a floor for zlib
#   python verifier                 bench/verify_record.py: zipfile + hashlib against RECORD
#   wheel unpack                    python -m wheel unpack (verifies RECORD while extracting)
#   auditwheel show                 Linux platform wheels only
#   wheelcheck check -j 1 / default / --depth metadata (and --no-binaries on the packed wheel: what
#   the binary analysis adds)
#   torch only: PyTorch's C++11-ABI check as release jobs run it (unzip libtorch_cpu.so, then
#   nm | c++filt | grep) beside `wheelcheck check --policy pytorch` (every rule, WC512 included)
# abi3: the wheels of bench/abi3_wheels.txt through abi3audit and wheelcheck (bench/abi3_parity.py):
#   whether each flags each extension, how many symbols, and the time of each for the whole set
# remote: torch and cublas served by a loopback nginx (bench/remote.py): `wheelcheck check URL` at
#   full and metadata depth (time, bytes read, requests, connections) beside curl -o + a local check
# install set: torch 2.15.0 with the native wheels of its install set, this build against the build
#   before symbol resolution (bench/install_set.py; at most 1.10x the time, 1.5x the peak RSS)
# sboms: pillow 13.0.0 with and without its sboms/, this build against the build before SBOMs were
#   read (bench/sbom_cost.py; nothing measurable without SBOMs, under 5% with them)
# provenance: 100 files with two PEP 740 attestations each, verified and not (bench/provenance_cost.py;
#   at most 5 ms per attestation, the release under 1 s)
# Writes bench/RESULTS.md (ratios against the Python verifier, the targets, the machine) and prints it.
# Usage: bench/run.sh [BUILD_DIR]    env: BENCH_RUNS (default 3), BENCH_SKIP_AUDITWHEEL=1
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
build=${1:-$root/build}
wc="$build/wheelcheck"
[ -x "$wc" ] || { echo "bench: $wc not built (make build)" >&2; exit 2; }
runs=${BENCH_RUNS:-3}
cache=${WHEELCHECK_BENCH_CACHE:-$HOME/.cache/wheelcheck-bench}
mkdir -p "$cache"
# One bench at a time per cache: two would share its venv, its generated wheels and results.tsv
# (and time each other). A second run waits for the first.
exec 9>"$cache/bench.lock"
flock 9 || { echo "bench: cannot lock $cache/bench.lock" >&2; exit 2; }

# --- peers: a venv with wheel and auditwheel from PyPI ------------------------------------------
venv="$cache/venv"
if [ ! -x "$venv/bin/auditwheel" ] || [ ! -x "$venv/bin/wheel" ]; then
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install -q "wheel>=0.43" "auditwheel>=6" >&2 || echo "bench: cannot install wheel/auditwheel from PyPI; those rows are skipped" >&2
fi
if [ ! -x "$venv/bin/abi3audit" ]; then
  "$venv/bin/pip" install -q "abi3audit>=0.0.26" >&2 || echo "bench: cannot install abi3audit from PyPI; the abi3 rows are skipped" >&2
fi
py="$venv/bin/python"

# --- files ----------------------------------------------------------------------------------------
declare -A file
fetched=$(python3 "$root/tools/fetch_wheels.py" "$cache" \
  torch torch-2.15.0-cp312-cp312-manylinux_2_28_x86_64.whl 6d8c86f4e33a9f12a58149bd9b0d64351632b8eb44479be8ff85e5389932dd79 \
  nvidia-cublas nvidia_cublas-13.4.1.3-py3-none-manylinux_2_27_x86_64.whl a5917cb642cfb07f4a0231ee16aec7e2e0357d8cb8b1b78a0c9c68dba3e6afc7) ||
  { echo "bench: cannot download the PyPI wheels; the torch and cublas rows are skipped" >&2; fetched=""; }
for f in $fetched; do
  case "$f" in *torch-*) file[torch]=$f ;; *nvidia_cublas*) file[cublas]=$f ;; esac
done

cuda=${CUDA_HOME:-/usr/local/cuda}/lib64
packed="$cache/nvidia_bench-1.0+cu13-py3-none-manylinux_2_28_x86_64.whl"
libs=()
for n in libcublasLt libcufft libcusparse libcurand libcublas; do
  f=$(ls "$cuda"/$n.so.* 2>/dev/null | head -1) && [ -n "$f" ] && libs+=("$f")
done
if [ ! -f "$packed" ] && [ ${#libs[@]} -gt 0 ]; then
  echo "packing ${#libs[@]} CUDA libraries into $packed ..." >&2
  python3 - "$packed" "${libs[@]}" <<'PY'
import base64, hashlib, os, sys, zipfile
wheel, libs = sys.argv[1], sys.argv[2:]
di = "nvidia_bench-1.0+cu13.dist-info"
rows = []
with zipfile.ZipFile(wheel + ".tmp", "w", zipfile.ZIP_DEFLATED, compresslevel=6) as z:
    def add(arc, data):
        z.writestr(arc, data)
        rows.append(f"{arc},sha256={base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b'=').decode()},{len(data)}")
    for lib in libs:
        add("nvidia/bench/lib/" + os.path.basename(lib), open(os.path.realpath(lib), "rb").read())
    add(di + "/METADATA", b"Metadata-Version: 2.1\nName: nvidia-bench\nVersion: 1.0+cu13\n")
    add(di + "/WHEEL", b"Wheel-Version: 1.0\nGenerator: bench\nRoot-Is-Purelib: false\nTag: py3-none-manylinux_2_28_x86_64\n")
    rows.append(di + "/RECORD,,")
    z.writestr(di + "/RECORD", "\n".join(rows) + "\n")
os.rename(wheel + ".tmp", wheel)
PY
fi
[ -f "$packed" ] && file[packed]=$packed || echo "bench: no CUDA toolkit libraries under $cuda; the packed row is skipped" >&2
file[many]=$(python3 "$here/make_many_entries.py" "$cache" 90000)

# --- measuring ------------------------------------------------------------------------------------
results="$cache/results.tsv"
: > "$results"
unpack_dir="$cache/unpacked"
# measure NAME LABEL CMD...: warm-up, then BENCH_RUNS timed runs; records the median seconds and max RSS.
measure() {
  local name=$1 label=$2
  shift 2
  local times=() rss=0 tmp t m
  tmp=$(mktemp)
  "$@" >/dev/null 2>&1 || true  # warm-up (page cache); wheelcheck exits 1 on findings
  rm -rf "$unpack_dir"
  for ((i = 0; i < runs; i++)); do
    /usr/bin/time -o "$tmp" -f "%e %M" "$@" >/dev/null 2>&1 || true
    read -r t m < <(tail -1 "$tmp")
    times+=("$t")
    [ "$m" -gt "$rss" ] && rss=$m
    rm -rf "$unpack_dir"
  done
  rm -f "$tmp"
  printf '%s\t%s\t%s\t%s\n' "$name" "$label" "$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((runs + 1) / 2))p")" "$rss" >> "$results"
  echo "  $name / $label: ${times[*]} s" >&2
}

for name in torch cublas packed many; do
  f=${file[$name]:-}
  [ -n "$f" ] || continue
  echo "$name: $f" >&2
  measure "$name" "unzip -t" unzip -tqq "$f"
  measure "$name" "python verifier" python3 "$here/verify_record.py" "$f"
  [ -x "$venv/bin/wheel" ] && measure "$name" "wheel unpack" "$py" -m wheel unpack -d "$unpack_dir" "$f"
  if [ "$name" != many ] && [ -x "$venv/bin/auditwheel" ] && [ "${BENCH_SKIP_AUDITWHEEL:-0}" != 1 ]; then
    measure "$name" "auditwheel show" "$venv/bin/auditwheel" show "$f"
  fi
  [ "$name" = packed ] && measure "$name" "wheelcheck check --no-binaries" "$wc" check -q --no-binaries "$f"
  measure "$name" "wheelcheck check -j 1" "$wc" check -q -j 1 "$f"
  measure "$name" "wheelcheck check" "$wc" check -q "$f"
  measure "$name" "wheelcheck check --depth metadata" "$wc" check -q --depth metadata "$f"
  if [ "$name" = torch ]; then
    lib="$cache/libtorch_cpu.so"
    measure "$name" "PyTorch C++11-ABI check (unzip + nm | c++filt | grep)" sh -c \
      "unzip -p '$f' torch/lib/libtorch_cpu.so > '$lib' && nm '$lib' | c++filt | grep -cE '(c10|at|torch|caffe2)::.*std::__cxx11::(basic_string|list)'; rm -f '$lib'"
    measure "$name" "wheelcheck check --policy pytorch" "$wc" check -q --policy pytorch "$f"
  fi
done

# --- abi3: WC511 beside abi3audit ----------------------------------------------------------------------
abi3_table="$cache/abi3_parity.md"
: > "$abi3_table"
if [ -x "$venv/bin/abi3audit" ]; then
  abi3_files=$(grep -v '^#' "$here/abi3_wheels.txt" | xargs python3 "$root/tools/fetch_wheels.py" "$cache/abi3") ||
    { echo "bench: cannot download the abi3 wheels; the abi3 rows are skipped" >&2; abi3_files=""; }
  # shellcheck disable=SC2086
  [ -n "$abi3_files" ] && { python3 "$here/abi3_parity.py" "$wc" "$venv/bin/abi3audit" $abi3_files > "$abi3_table" || true; }
fi

# --- remote: the large wheels served by a loopback nginx -------------------------------------------
remote_table="$cache/remote.md" remote_targets="$cache/remote_targets.md"
: > "$remote_table"
: > "$remote_targets"
if command -v nginx > /dev/null && command -v curl > /dev/null; then
  remote_files=()
  for name in torch cublas; do [ -n "${file[$name]:-}" ] && remote_files+=("${file[$name]}"); done
  [ ${#remote_files[@]} -gt 0 ] &&
    { python3 "$here/remote.py" "$wc" "$runs" "$remote_targets" "${remote_files[@]}" > "$remote_table" || true; }
else
  echo "bench: nginx or curl missing; the remote rows are skipped" >&2
fi

# --- hostile: issue 28's resource classes at three sizes each (linear growth, next to unzip -t) ----
hostile_table="$cache/hostile.md"
hostile_work=$(mktemp -d)
python3 "$here/hostile.py" "$wc" "$hostile_work" > "$hostile_table" || echo "bench: the hostile rows failed" >&2
rm -rf "$hostile_work"

# --- install set: symbol resolution (WC514-WC516) against the build before it, on torch's set ------
# The baseline is built once into the cache from BENCH_BASELINE_REF (the last commit before symbols
# were resolved), or given as BENCH_BASELINE_BINARY.
set_table="$cache/install_set.md"
: > "$set_table"
# baseline_binary REF: the wheelcheck of commit REF, built once into the cache ("" when REF is not
# in this clone's history or its build fails).
baseline_binary() {
  local ref=$1 tree="$cache/baseline-$1"
  git -C "$root" cat-file -e "$ref^{commit}" 2>/dev/null || return 0
  if [ ! -x "$tree/build/wheelcheck" ]; then
    echo "building the baseline wheelcheck at $ref (once) ..." >&2
    rm -rf "$tree" && git -C "$root" worktree add -f --detach "$tree" "$ref" >&2 &&
      cmake -S "$tree" -B "$tree/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >&2 &&
      cmake --build "$tree/build" --target wheelcheck >&2 || echo "bench: the baseline build at $ref failed" >&2
  fi
  [ -x "$tree/build/wheelcheck" ] && echo "$tree/build/wheelcheck"
  return 0
}
ref=${BENCH_BASELINE_REF:-7bebf2b}
baseline=${BENCH_BASELINE_BINARY:-$(baseline_binary "$ref")}
if [ -n "$baseline" ]; then
  python3 "$here/install_set.py" "$cache" "$wc" "$baseline" --runs "$runs" --out "$set_table" >&2 ||
    echo "bench: the install-set rows failed (or PyPI is unreachable)" >&2
else
  echo "bench: no baseline binary (BENCH_BASELINE_BINARY, or $ref in git); the install-set rows are skipped" >&2
fi

# --- SBOMs: PEP 770 reading (WC901-WC906) against the build before it, on pillow -------------------
# The baseline is built once into the cache from BENCH_SBOM_BASELINE_REF (the last commit before
# SBOMs were read), or given as BENCH_SBOM_BASELINE_BINARY.
sbom_table="$cache/sbom_cost.md"
: > "$sbom_table"
sbom_ref=${BENCH_SBOM_BASELINE_REF:-f58e9ed}
sbom_baseline=${BENCH_SBOM_BASELINE_BINARY:-$(baseline_binary "$sbom_ref")}
if [ -n "$sbom_baseline" ]; then
  python3 "$here/sbom_cost.py" "$cache" "$wc" "$sbom_baseline" --runs "$runs" --out "$sbom_table" >&2 ||
    echo "bench: the SBOM rows failed (or PyPI is unreachable)" >&2
else
  echo "bench: no SBOM baseline binary (BENCH_SBOM_BASELINE_BINARY, or $sbom_ref in git); the SBOM rows are skipped" >&2
fi

# --- provenance: PEP 740 verification (WC911-WC913) of a 100-file release -------------------------
prov_table="$cache/provenance_cost.md"
: > "$prov_table"
python3 "$here/provenance_cost.py" "$cache" "$wc" --runs "$runs" --out "$prov_table" >&2 ||
  echo "bench: the provenance rows failed (or PyPI is unreachable)" >&2

# --- diff and --baseline (issue 47): against plain checks of the same torch wheel -------------------
diff_table="$cache/diff_cost.md"
: > "$diff_table"
if [ -n "${file[torch]:-}" ]; then
  python3 "$here/diff_cost.py" "$wc" "${file[torch]}" --runs "$runs" --out "$diff_table" >&2 ||
    echo "bench: the diff rows failed" >&2
fi

# --- the floor (issue 48): check CPU against inflate + hash alone, torch and 100,000 entries ---------
floor_table="$cache/floor.md"
: > "$floor_table"
floor_files=()
[ -n "${file[torch]:-}" ] && floor_files+=("${file[torch]}")
floor_files+=("$(mkdir -p "$cache/entries-100000" && python3 "$here/make_many_entries.py" "$cache/entries-100000" 100000)")
RUNS=$runs python3 "$here/floor.py" "$build" "${floor_files[@]}" > "$floor_table" || echo "bench: the floor rows failed" >&2

# --- check while downloading (issue 48): torch from loopback nginx, full speed and 100 MB/s ------
overlap_table="$cache/overlap.md"
: > "$overlap_table"
if [ -n "${file[torch]:-}" ] && command -v nginx >/dev/null; then
  RUNS=$runs python3 "$here/overlap.py" "$wc" "${file[torch]}" > "$overlap_table" || echo "bench: the overlap rows failed" >&2
fi

# --- a nightly at scale (issue 48): 50, 100, 200 real wheels from a folder and an index page ------
nightly_table="$cache/nightly.md"
python3 "$here/nightly.py" "$build" > "$nightly_table" || { echo "bench: the nightly rows failed" >&2; : > "$nightly_table"; }

# --- report ---------------------------------------------------------------------------------------
declare -A size
for name in "${!file[@]}"; do size[$name]=$(stat -c %s "${file[$name]}"); done
python3 - "$results" "$here/RESULTS.md" "$(nproc)" "$(lscpu | sed -n 's/^Model name: *//p' | head -1)" \
  "$("$wc" --version)" "$(date -u +%Y-%m-%d)" "$runs" \
  "$abi3_table" "$remote_table" "$remote_targets" "torch=${file[torch]:-}" "cublas=${file[cublas]:-}" "packed=${file[packed]:-}" "many=${file[many]:-}" <<'PY'
import os, sys, collections
results, out, cores, cpu, version, day, runs, abi3_table, remote_table, remote_targets = sys.argv[1:11]
files = dict(a.split("=", 1) for a in sys.argv[11:])
rows = collections.OrderedDict()
for line in open(results):
    name, label, t, rss = line.rstrip("\n").split("\t")
    rows.setdefault(name, []).append((label, float(t), int(rss)))
desc = {"torch": "real torch CUDA wheel, linux x86_64 (PyPI)", "cublas": "nvidia-cublas, a large torch dependency (PyPI)",
        "packed": "CUDA toolkit libraries packed in one wheel", "many": "90,000 small files"}
lines = [f"# Benchmark results", "",
         f"Written by `make bench` (bench/run.sh) on {day}: {cores} cores ({cpu}), {version}. Each time is the median of "
         f"{runs} runs after a warm-up run (files in the page cache); ratios are against the Python zipfile+hashlib RECORD "
         f"verifier (bench/verify_record.py) measured in the same run: above 1 means wheelcheck is faster.", ""]
targets = []
for name, rs in rows.items():
    path = files.get(name, "")
    size = os.path.getsize(path) / 1e6 if path else 0
    lines += [f"## {name}: {desc.get(name, name)}", "", f"`{os.path.basename(path)}`, {size:.0f} MB", "",
              "| command | seconds | x Python verifier | max RSS (MiB) |", "|---|---:|---:|---:|"]
    t = {label: (s, rss) for label, s, rss in rs}
    base = t.get("python verifier", (0, 0))[0]
    for label, s, rss in rs:
        ratio = f"{base / s:.2f}" if s and base else "-"
        lines.append(f"| {label} | {s:.2f} | {ratio} | {rss / 1024:.1f} |")
    lines.append("")
    full = t.get("wheelcheck check", (0, 0))[0]
    def target(what, ok, detail):
        targets.append(f"| {name} | {what} | {detail} | {'met' if ok else 'MISSED'} |")
    if name in ("torch", "packed") and base and full:
        target("check (default -j) >= 2.5x the Python verifier", base / full >= 2.5, f"{base / full:.2f}x")
        j1 = t.get("wheelcheck check -j 1", (0, 0))[0]
        if j1: target("check -j 1 >= 1.3x the Python verifier", base / j1 >= 1.3, f"{base / j1:.2f}x")
    if name == "torch" and full and "auditwheel show" in t:
        a = t["auditwheel show"][0]
        target("check >= 10x faster than auditwheel show", a / full >= 10, f"{a / full:.1f}x")
    if full and "wheelcheck check --depth metadata" in t:
        m = t["wheelcheck check --depth metadata"][0]
        target("--depth metadata under 5% of the full check", m / full < 0.05, f"{100 * m / full:.1f}%")
    nb = t.get("wheelcheck check --no-binaries", (0, 0))[0]
    unz = t.get("unzip -t", (0, 0))[0]
    if nb and full and unz:
        target("binary analysis adds under 20% of unzip -t's time", (full - nb) / unz < 0.2, f"{100 * (full - nb) / unz:.1f}%")
    if full:
        rss = t["wheelcheck check"][1] / 1024
        target("check peak RSS under 64 MiB", rss < 64, f"{rss:.1f} MiB")
    nm = t.get("PyTorch C++11-ABI check (unzip + nm | c++filt | grep)", (0, 0))[0]
    pt = t.get("wheelcheck check --policy pytorch", (0, 0))[0]
    if nm and pt:
        target("full check with every rule faster than PyTorch's C++11-ABI script alone", pt < nm, f"{nm / pt:.1f}x")
abi3 = open(abi3_table).read().strip() if os.path.exists(abi3_table) else ""
if abi3:
    lines += ["## abi3: wheelcheck WC511 beside abi3audit", "",
              "The wheels of bench/abi3_wheels.txt; each row an extension either tool flags (symbol counts).", "", abi3, ""]
    m = __import__("re").search(r"abi3audit ([0-9.]+) s, wheelcheck ([0-9.]+) s .*?; (\d+) binaries judged differently", abi3)
    if m:
        a, w, d = float(m.group(1)), float(m.group(2)), int(m.group(3))
        targets.append(f"| abi3 set | same extensions flagged as abi3audit | {d} differ | {'met' if d == 0 else 'MISSED'} |")
        targets.append(f"| abi3 set | faster than abi3audit | {a / w:.1f}x | {'met' if w < a else 'MISSED'} |")
remote = open(remote_table).read().strip() if os.path.exists(remote_table) else ""
if remote:
    lines += ["## Remote: wheelcheck on a URL beside curl -o and a local check", "",
              "A loopback nginx serves the large wheels; wheelcheck reads them over HTTP (one streamed body at full depth, "
              "planned and coalesced ranges at --depth metadata). Times are medians; the peer is curl -o plus a local check.",
              "", remote, ""]
    targets += [l.rstrip("\n") for l in open(remote_targets) if l.strip()]
lines += ["## Targets", "", "| file | target | measured | |", "|---|---|---|---|"] + targets + [""]
open(out, "w").write("\n".join(lines))
print("\n".join(lines))
PY
# Each further table, when its bench produced one, under its heading.
section() {
  [ -s "$2" ] && { printf '\n## %s\n\n' "$1"; cat "$2"; } >> "$here/RESULTS.md"
  return 0
}
section "Symbol resolution: torch with its install set, before and after (bench/install_set.py)" "$set_table"
section "SBOMs (PEP 770): pillow with and without its SBOMs, before and after (bench/sbom_cost.py)" "$sbom_table"
section "Regressions against a baseline: diff and check --baseline (bench/diff_cost.py)" "$diff_table"
section "Provenance (PEP 740): a 100-file release with and without verification (bench/provenance_cost.py)" "$prov_table"
section "Small inputs built to cost much (bench/hostile.py)" "$hostile_table"
section "The floor: a full check against inflate + SHA-256 alone (bench/floor.py)" "$floor_table"
section "A nightly at scale: 50, 100, 200 real wheels (bench/nightly.py)" "$nightly_table"
section "Check while downloading (bench/overlap.py)" "$overlap_table"
