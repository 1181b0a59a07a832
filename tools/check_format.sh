#!/usr/bin/env bash
# The C++ and CUDA sources follow the root .clang-format (CTest Style.ClangFormat). Pinned to
# clang-format 14 (Debian 12's; scripts/install-deps.sh installs it): other versions lay out a few
# constructs differently. Exit 77 (skipped) where it is missing. Usage: check_format.sh SOURCE_DIR
set -euo pipefail
cd "$1"
cf=$(command -v clang-format-14 || true)
[ -n "$cf" ] || { echo "SKIP: clang-format-14 not installed (scripts/install-deps.sh installs it)"; exit 77; }
mapfile -t files < <(git ls-files -co --exclude-standard -- '*.cc' '*.h' '*.cu' '*.cuh' 2>/dev/null ||
                     find src kernels tests tools fuzz bench -name '*.cc' -o -name '*.h' -o -name '*.cu')
[ ${#files[@]} -gt 0 ] || { echo "no sources found under $1"; exit 1; }
if ! "$cf" --dry-run --Werror "${files[@]}" 2>"${TMPDIR:-/tmp}/check_format.$$"; then
  grep -c 'error:' "${TMPDIR:-/tmp}/check_format.$$" | xargs printf '%s lines differ from .clang-format; first ones:\n'
  head -20 "${TMPDIR:-/tmp}/check_format.$$"
  rm -f "${TMPDIR:-/tmp}/check_format.$$"
  echo "fix with: clang-format-14 -i \$(git ls-files '*.cc' '*.h' '*.cu')"
  exit 1
fi
rm -f "${TMPDIR:-/tmp}/check_format.$$"
echo "${#files[@]} files follow .clang-format"
