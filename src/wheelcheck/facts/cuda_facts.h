// What a wheel says about CUDA, gathered from several places so rules can compare them: the
// variant (+cu128 local version, or the policy, or a version file), the runtime sonames its
// binaries link, nvidia-* Requires-Dist pins, and the GPU code its fatbins carry.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "facts/wheel_facts.h"
#include "policy/policy.h"

namespace wc {

struct CudaVariant {
  std::string name;  // "cu128" or "cpu"
  int major = 0, minor = 0;
  std::string source;  // "local version", "policy", "version file"
  bool cpu() const { return name == "cpu"; }
  std::string version() const { return std::to_string(major) + "." + std::to_string(minor); }
};

struct CudaLink {
  std::string binary, soname;
  int major = 0;
};

struct CudaPin {
  std::string requirement, package;
  int major = 0;
};

struct CudaToolkitUse {
  std::string binary, version;  // from nvcc's .comment
};

struct CudaFacts {
  std::vector<CudaToolkitUse> toolkits;
  std::optional<CudaVariant> variant;
  std::optional<std::string> version_file_value;  // e.g. "12.8" from torch/version.py
  std::vector<CudaLink> links;
  std::vector<CudaPin> pins;
  std::vector<std::string> sass, ptx;  // union over binaries
  bool any_gpu_code = false;
};

std::optional<CudaVariant> parse_cuda_variant(const std::string& label);  // "cu128" -> 12.8
CudaFacts derive_cuda_facts(const WheelFacts& f, const CudaPolicy& cuda);
nlohmann::json cuda_facts_to_json(const CudaFacts& c);

}  // namespace wc
