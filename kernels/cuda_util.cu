#include "cuda_util.h"

#include <dlfcn.h>

namespace wc::cuda {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    cudaGetLastError();  // clear a sticky launch error so the next case starts clean where it can
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
  }
}

bool device_present(std::string* why) {
  // cudart says "driver version is insufficient" when there is no driver at all; say what it is.
  static const bool have_driver = [] {
    void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (h) dlclose(h);
    return h != nullptr;
  }();
  if (!have_driver) {
    if (why) *why = "no NVIDIA driver (libcuda.so.1 cannot be loaded)";
    return false;
  }
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    if (why) *why = std::string("no usable CUDA device: ") + cudaGetErrorString(e);
    cudaGetLastError();
    return false;
  }
  if (n == 0) {
    if (why) *why = "no CUDA device";
    return false;
  }
  return true;
}

std::string device_name() {
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) return "?";
  return p.name;
}

double peak_bandwidth() {
  int clock_khz = 0, bus_bits = 0;
  check(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, 0), "memory clock rate");
  check(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0), "memory bus width");
  return 2.0 * double(clock_khz) * 1e3 * double(bus_bits) / 8.0;
}

}  // namespace wc::cuda
