#!/usr/bin/env bash
# Installs whatever the build and the tests need and is not there yet (Debian/Ubuntu, as root or via sudo).
# The CUDA Toolkit is optional: found at /usr/local/cuda (or nvcc on PATH) it builds the kernels too.
set -euo pipefail

# --fuzz: the libFuzzer toolchain (clang with its runtime) for `make fuzz`.
# --runtime: only the libraries a built wheelcheck links (the composite action's cached build).
pkgs=(build-essential cmake ninja-build pkg-config clang lld
      libarchive-dev nlohmann-json3-dev libcli11-dev libcurl4-openssl-dev libssl-dev libre2-dev libisal-dev libutf8proc-dev zlib1g-dev libzstd-dev libtomlplusplus-dev
      libgtest-dev libgmock-dev
      binutils python3 python3-packaging python3-venv python3-jsonschema python3-rfc3987 libxml2-utils zip unzip jq nginx-light clang-format-14)
if [ "${1:-}" = "--fuzz" ]; then
  pkgs=(clang libclang-rt-14-dev)
elif [ "${1:-}" = "--runtime" ]; then
  pkgs=(libarchive-dev libcurl4-openssl-dev libssl-dev libre2-dev libisal-dev libutf8proc-dev zlib1g-dev libzstd-dev libtomlplusplus-dev)
fi

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "install-deps: installing ${missing[*]}" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# Packages such as nginx start their service on install; the tests start their own servers on
# loopback, so keep apt from starting (and failing to start) system services.
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$policy" >/dev/null && $SUDO chmod +x "$policy"
  trap '$SUDO rm -f "$policy"' EXIT
fi
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
