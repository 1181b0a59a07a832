// PyTorch's ABI, per binary (WC515): a binary that links libtorch or libc10 is on the LibTorch
// stable ABI (only the C shims aoti_torch_* / torch_* and header-only torch::headeronly and
// torch::stable) or on the unstable C++ ABI (any other c10::, at::, torch::, caffe2:: symbol),
// read from the undefined symbols the single pass already holds.
#pragma once

#include <string>
#include <vector>

#include "binary/binary_facts.h"
#include "policy/policy.h"

namespace wc {

struct TorchAbi {
  bool links_torch = false;  // a DT_NEEDED libtorch*.so or libc10*.so
  bool stable = false;       // links torch and imports nothing but the stable ABI
  size_t unstable = 0;       // unstable C++ symbols imported
  std::string first_unstable;
  std::vector<std::string> shims;          // stable C shims imported
  std::vector<std::string> unknown_shims;  // aoti_torch_* imported that the table does not know
  std::string min_torch;                   // the newest shim's release ("2.10"); "" when none is known
  std::string newest_shim;
};

TorchAbi torch_abi_of(const BinaryFacts& b, const AbiPolicy& abi);
// Whether a mangled name names torch's unstable C++ ABI (a c10, at, torch or caffe2 namespace other
// than torch::headeronly and torch::stable).
bool unstable_torch_symbol(std::string_view mangled);

}  // namespace wc
