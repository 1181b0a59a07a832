// Compiled instead of cuda_backend.cu when CMake found no CUDA toolkit.
#include "dtensor_view/view.h"

namespace wc::dtv {

static const char* kWhy = "wheelsmoke was built without a CUDA toolkit; GPU suites are not available";

bool cuda_built() { return false; }

std::optional<std::vector<Tensor>> device_local_views(const std::vector<Tensor>&, const std::vector<StridedMap>&,
                                                      std::string* why) {
  if (why) *why = kWhy;
  return std::nullopt;
}

double device_strided_copy_rate(int64_t, double*, std::string* why) {
  if (why) *why = kWhy;
  return 0;
}

}  // namespace wc::dtv
