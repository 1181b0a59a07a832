// Compiled instead of cuda_backend.cu when CMake found no CUDA toolkit: every GPU entry point
// answers "not built" with the reason, so wheelsmoke reports GPU parts as skipped.
#include "rng_graph/backend.h"

namespace wc::rng {

static const char* kWhy = "wheelsmoke was built without a CUDA toolkit; GPU suites are not available";

bool cuda_built() { return false; }

std::unique_ptr<Backend> make_cuda_backend(std::string* why) {
  if (why) *why = kWhy;
  return nullptr;
}

std::vector<uint32_t> device_philox_stream(uint64_t, uint64_t, uint64_t, size_t, std::string* why) {
  if (why) *why = kWhy;
  return {};
}

std::vector<uint32_t> device_curand_stream(uint64_t, uint64_t, uint64_t, size_t, std::string* why) {
  if (why) *why = kWhy;
  return {};
}

std::vector<float> device_curand_uniform(uint64_t, uint64_t, uint64_t, size_t, std::string* why) {
  if (why) *why = kWhy;
  return {};
}

double device_fill_rate(uint32_t, uint32_t, int, std::string* why) {
  if (why) *why = kWhy;
  return 0;
}

double device_curand_fill_rate(uint32_t, uint32_t, int, std::string* why) {
  if (why) *why = kWhy;
  return 0;
}

}  // namespace wc::rng
