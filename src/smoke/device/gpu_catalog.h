// Facts for deciding offline whether GPU code runs somewhere: named GPUs, driver versions and the
// CUDA version they support, PTX ISA versions and the driver they need (docs/DESIGN.md, "NVIDIA fatbin layout").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "binary/binary_facts.h"

namespace wc::smoke {

struct Target {
  std::string label;  // "H100", "sm_90", or the probed device's name
  int cc_major = 0, cc_minor = 0;
  std::optional<std::string> driver;  // "550.54.14"
  int cc() const { return cc_major * 10 + cc_minor; }
};

// "H100", "h200", "A100", "RTX 5090" ... -> compute capability; nullopt if unknown.
std::optional<std::pair<int, int>> gpu_compute_capability(const std::string& name);
std::vector<std::string> known_gpus();
// "sm_90", "9.0", "90", "sm_100a" -> (major, minor); nullopt if malformed.
std::optional<std::pair<int, int>> parse_sm(const std::string& s);
// Highest CUDA version ("12.4") a Linux driver supports, from the GA driver table; nullopt if older
// than every row or unparsable.
std::optional<std::string> driver_cuda_version(const std::string& driver);
// CUDA version whose driver is needed to JIT a PTX ISA ("8.7" -> "12.8"); nullopt if unknown.
std::optional<std::string> ptx_isa_min_cuda(const std::string& isa);
// Minimum driver for a CUDA runtime major under minor-version compatibility ("12" -> 525.60.13).
std::optional<std::string> runtime_driver_floor(int cuda_major);
// Which runtime major a soname belongs to (libcudart.so.12 -> 12).
std::optional<int> cudart_major(const std::string& soname);

// SASS sm_XY runs on X.Z with Z >= Y; sm_XYa only on X.Y; sm_XYf on X.Z with Z >= Y.
bool sass_runs_on(const FatbinEntry& e, const Target& t);
// PTX compute_XY can be JIT-compiled for CC >= X.Y (same rules for a/f suffixes).
bool ptx_targets(const FatbinEntry& e, const Target& t);

}  // namespace wc::smoke
