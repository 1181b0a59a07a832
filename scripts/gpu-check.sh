#!/usr/bin/env bash
# The GPU checks in one go, for a machine with an NVIDIA GPU: build (if needed), the GPU tests,
# then `wheelsmoke probe`, every suite on the device with a missing GPU as a failure, and the
# benchmark. Output under ${OUT:-gpu-check}/ (probe.json, run.json, bench.txt, bench.json, ctest.log).
# Usage: scripts/gpu-check.sh [BUILD_DIR]
set -uo pipefail
build=${1:-build}
out=${OUT:-gpu-check}
mkdir -p "$out"
[ -x "$build/wheelsmoke" ] || { cmake --preset default -B "$build" >/dev/null && cmake --build "$build" -j "$(nproc)"; } || exit 2
"$build/wheelsmoke" probe --format json | tee "$out/probe.json"
(cd "$build" && ctest --output-on-failure -R 'Cuda|SuitesCli|Smoke') > "$out/ctest.log" 2>&1; t=$?
"$build/wheelsmoke" run --backend cuda --require-gpu --format json > "$out/run.json"; r=$?
"$build/wheelsmoke" run --backend cuda --require-gpu | tail -5
"$build/wheelsmoke" bench | tee "$out/bench.txt"
"$build/wheelsmoke" bench -f json > "$out/bench.json"
echo "gpu tests exit $t, wheelsmoke run exit $r"
[ "$t" -eq 0 ] && [ "$r" -eq 0 ]
