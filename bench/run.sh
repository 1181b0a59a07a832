#!/usr/bin/env bash
# Binary-analysis overhead on real NVIDIA libraries: packs the CUDA toolkit's shared libraries
# (real fatbins, hundreds of MB) into a wheel, then times in one run, on the same file:
#   peer:  unzip -t          (inflate every entry + CRC-32: the floor for reading a wheel)
#   ours:  wheelcheck check --no-binaries   (inflate + SHA-256 + archive/metadata rules)
#          wheelcheck check                 (the above + ELF and fatbin analysis)
#          wheelcheck inspect
# Target (issue: binaries): binary analysis adds under 20% of the cost of inflating the entries.
# Usage: bench/run.sh BUILD_DIR [LIB ...]   (defaults: the largest libraries in /usr/local/cuda/lib64)
set -euo pipefail
build=${1:-build}
shift || true
cache=${WHEELCHECK_BENCH_CACHE:-$HOME/.cache/wheelcheck-bench}
mkdir -p "$cache"
cuda=${CUDA_HOME:-/usr/local/cuda}/lib64
libs=("$@")
if [ ${#libs[@]} -eq 0 ]; then
  for n in libcublasLt libcufft libcusparse libcurand libcublas; do
    f=$(ls "$cuda"/$n.so.* 2>/dev/null | head -1) && [ -n "$f" ] && libs+=("$f")
  done
fi
[ ${#libs[@]} -gt 0 ] || { echo "bench: no CUDA libraries found under $cuda; pass some .so files" >&2; exit 2; }
wheel="$cache/nvidia_bench-1.0+cu13-py3-none-manylinux_2_28_x86_64.whl"
if [ ! -f "$wheel" ]; then
  echo "packing ${#libs[@]} libraries into $wheel ..." >&2
  python3 - "$wheel" "${libs[@]}" <<'PY'
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
ls -l "$wheel" >&2
uncompressed=$(unzip -l "$wheel" | tail -1 | awk '{print $1}')

# median of 3 wall-clock runs, plus max RSS of the last, for one command
measure() {
  local best=() rss=0 t m tmp
  tmp=$(mktemp)
  for i in 1 2 3; do
    /usr/bin/time -o "$tmp" -f "%e %M" "$@" >/dev/null 2>&1 || true  # wheelcheck exits 1 on findings
    read -r t m < <(tail -1 "$tmp")
    best+=("$t"); rss=$m
  done
  rm -f "$tmp"
  printf '%s %s\n' "$(printf '%s\n' "${best[@]}" | sort -n | sed -n 2p)" "$rss"
}
read -r t_unzip m_unzip < <(measure unzip -tqq "$wheel")
read -r t_meta m_meta < <(measure "$build/wheelcheck" check -q --no-binaries "$wheel")
read -r t_check m_check < <(measure "$build/wheelcheck" check -q "$wheel")
read -r t_inspect m_inspect < <(measure "$build/wheelcheck" inspect "$wheel")
python3 - "$uncompressed" "$t_unzip" "$t_meta" "$t_check" "$t_inspect" "$m_unzip" "$m_meta" "$m_check" "$m_inspect" <<'PY'
import sys
u, tu, tm, tc, ti, mu, mm, mc, mi = sys.argv[1:]
u = int(u); tu, tm, tc, ti = map(float, (tu, tm, tc, ti))
mb = u / 1e6
print(f"wheel: {mb:.0f} MB uncompressed")
print(f"{'command':34} {'seconds':>8} {'MB/s':>8} {'x unzip -t':>11} {'max RSS MiB':>12}")
for name, t, m in (("unzip -t (peer)", tu, mu), ("wheelcheck check --no-binaries", tm, mm),
                   ("wheelcheck check", tc, mc), ("wheelcheck inspect", ti, mi)):
    print(f"{name:34} {t:8.2f} {mb / t if t else 0:8.0f} {t / tu if tu else 0:11.2f} {int(m) / 1024:12.1f}")
extra = (tc - tm) / tu * 100 if tu else 0
print(f"binary analysis adds {extra:.1f}% of the cost of inflating the entries (target: under 20%)")
PY
