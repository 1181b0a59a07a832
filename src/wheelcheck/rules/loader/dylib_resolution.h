// macOS install names resolved as dyld resolves them, across an install set. WC503/WC504 (binary
// rules) ask whether each dylib is found; WC514 (link rules) asks which image, to bind against it.
#pragma once

#include <string>

#include "binary/binary_facts.h"
#include "facts/wheel_facts.h"
#include "policy/policy.h"
#include "rules/loader/install_set.h"

namespace wc {

struct DylibFound {
  enum class Where { system, run, nowhere } where = Where::nowhere;
  const WheelFacts* wheel = nullptr;    // Where::run
  const BinaryFacts* binary = nullptr;  // the image, when it is a parsed binary of the run
  bool already_loaded = false;          // an @rpath name matched an image in the process: no search
  // How many of the slice's LC_RPATHs dyld tried for an @rpath name: up to the one that found it,
  // all of them when it was found past them (the loading chain, dyld's fallback) or not at all.
  size_t rpaths_searched = 0;
};

// Where dyld finds the load command `name` of slice `sl` of `b` (a binary of `f`): system
// libraries by the policy's prefixes (and, in an iOS wheel, what the host app provides);
// @loader_path/X next to the binary; @rpath/X first as an image already loaded under that install
// name (every torch extension's only LC_RPATH is a CI build folder: after `import torch` its
// @rpath/libc10.dylib is torch's image of that name; a library the package's Python loads by path
// is one too), then through the slice's LC_RPATHs, then the
// LC_RPATHs of a binary of the wheel that loads this one (dyld searches the whole loading chain's),
// then dyld's fallback (/usr/lib, for a system library's leaf name). Anything else
// (/opt/homebrew/..., /usr/local/...) exists only on the build machine.
DylibFound find_dylib(const WheelFacts& f, const BinaryFacts& b, const MachOSlice& sl, const std::string& name,
                      const InstallSet& set, const Policy& p, bool ios);

}  // namespace wc
