// Compiled instead of cuda_backend.cu when CMake found no CUDA toolkit.
#include "pad_concat/pad.h"

namespace wc::pad {

static const char* kWhy = "wheelsmoke was built without a CUDA toolkit; GPU suites are not available";

std::unique_ptr<PadBackend> make_cuda_backend(std::string* why) {
  if (why) *why = kWhy;
  return nullptr;
}

std::vector<PadBench> device_pad_bench(const std::vector<int64_t>&, DeviceBandwidth*, std::string* why) {
  if (why) *why = kWhy;
  return {};
}

}  // namespace wc::pad
