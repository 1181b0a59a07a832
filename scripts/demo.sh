#!/usr/bin/env bash
# The main job on a built-in sample: builds a wheelhouse of good wheels and wheels broken on purpose
# (GPU samples too where nvcc exists), then runs `wheelcheck check` over it. Exit 1 from the check
# is the expected outcome (the broken samples fail); anything else fails the demo.
set -uo pipefail
build=${1:-build}
rm -rf "$build/demo" && mkdir -p "$build/demo"
cc -shared -fPIC -O2 -o "$build/demo/libdemo.so" tools/demo_native.c || exit 1
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
gpu=()
if [ -x "$nvcc" ] && "$nvcc" -shared -Xcompiler -fPIC -gencode arch=compute_80,code=sm_80 \
     -gencode arch=compute_90,code='[sm_90,compute_90]' tools/demo_kernel.cu -o "$build/demo/libdemo_gpu.so"; then
  gpu=(--gpu-so "$build/demo/libdemo_gpu.so")
else
  echo "(no nvcc: the GPU samples are left out)"
fi
"$build/tools/make-sample-wheelhouse" "$build/demo/wheelhouse" --so "$build/demo/libdemo.so" "${gpu[@]}" || exit 1
echo
echo "== wheelcheck check $build/demo/wheelhouse (exit 1 is expected: the broken samples fail) =="
"$build/wheelcheck" check "$build/demo/wheelhouse" --report "json:$build/demo/report.json"
rc=$?
echo
echo "exit code $rc; JSON report in $build/demo/report.json"
[ "$rc" -eq 1 ]
