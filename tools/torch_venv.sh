#!/usr/bin/env bash
# A cached venv with the pinned PyTorch (the oracle of the dtensor_view model; `make test-torch`):
# created once under ~/.cache/wheelcheck-torch (torch from PyPI runs on CPU; several GB with its
# nvidia-* dependencies), then reused. Prints the venv's python. Exit 77 when PyPI is unreachable.
set -euo pipefail
version=${WHEELCHECK_TORCH_VERSION:-2.15.0}
dir=${WHEELCHECK_TORCH_CACHE:-$HOME/.cache/wheelcheck-torch}
py="$dir/venv/bin/python"
if ! "$py" -c "import torch, sys; sys.exit(torch.__version__.split('+')[0] != '$version')" 2>/dev/null; then
  mkdir -p "$dir"
  python3 -m venv "$dir/venv" >&2
  if ! "$dir/venv/bin/pip" install -q "torch==$version" numpy >&2; then
    echo "torch_venv: cannot install torch==$version from the package index" >&2
    exit 77
  fi
fi
echo "$py"
