#!/usr/bin/env bash
# A cached venv with the pinned PyTorch (the oracle of the dtensor_view model; `make test-torch`):
# created once under ~/.cache/wheelcheck-torch (torch from PyPI runs on CPU; several GB with its
# nvidia-* dependencies), then reused. Prints the venv's python. Exit 77 when PyPI is unreachable.
# Two callers at once build it once: tools/wc_cache.py locks it and marks it complete last.
set -euo pipefail
version=${WHEELCHECK_TORCH_VERSION:-2.15.0}
dir=${WHEELCHECK_TORCH_CACHE:-$HOME/.cache/wheelcheck-torch}
rc=0
bin=$(python3 "$(dirname "$0")/wc_cache.py" venv "$dir/venv" "torch==$version" numpy) || rc=$?
if [ "$rc" -ne 0 ]; then
  echo "torch_venv: cannot install torch==$version from the package index" >&2
  exit 77
fi
echo "$bin/python"
