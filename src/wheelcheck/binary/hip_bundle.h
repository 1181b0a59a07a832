// AMD GPU code in a HIP binary: the .hip_fatbin section holds clang offload bundles
// (`__CLANG_OFFLOAD_BUNDLE__`: a count, then per code object its offset, size and bundle entry ID
// such as "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-"), or compressed bundles ("CCOB": version,
// method zlib/zstd, sizes, hash, then the compressed bundle). Only the head of the section is read:
// every translation unit of one library is built for the same --offload-arch list, so the first
// bundle names the targets of the library.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace wc {

struct HipFacts {
  std::vector<std::string> targets;  // target IDs of the code objects: "gfx90a:xnack-", "gfx942"
  std::string compression;           // "", "zlib" or "zstd"
  std::string error;                 // why the bundle could not be read ("" when it was)
  bool empty() const { return targets.empty() && error.empty(); }
  // The processors ("gfx90a"), sorted, each once.
  std::vector<std::string> processors() const;
};

// How many bytes of the section's start parse_hip_bundle wants (a compressed bundle's first block).
constexpr size_t kHipBundleHead = 256u << 10;

// Parses the bundle at the start of `p` (at most kHipBundleHead bytes of the section).
HipFacts parse_hip_bundle(const uint8_t* p, size_t n);

}  // namespace wc
