// The NVIDIA driver, loaded at run time (dlopen libcuda.so.1): wheelsmoke has no link-time
// dependency on it, so it starts and reports cleanly on machines without a GPU.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace wc::smoke {

struct DeviceInfo {
  int index = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  uint64_t memory_bytes = 0;
  int multiprocessors = 0;
};

struct ProbeResult {
  bool driver_loaded = false;
  std::string why;              // when no driver or no device
  std::string driver_version;   // "550.54.14" (from /proc/driver/nvidia/version or NVML)
  int driver_cuda_version = 0;  // cuDriverGetVersion: 1000*major + 10*minor
  int runtime_version = 0;      // the CUDA runtime linked into wheelsmoke (0 if built without CUDA)
  std::vector<DeviceInfo> devices;
};

ProbeResult probe();

// Loads one fatbin container (starting with the 0xBA55ED50 header) into a context on `device`
// with eager loading. Returns 0 on success, else the CUresult and its name.
struct LoadResult {
  int code = 0;
  std::string name;
};

class Driver {
 public:
  static std::unique_ptr<Driver> open(std::string* why);  // nullptr + reason without a driver
  ~Driver();
  LoadResult load_container(int device, const void* image);

 private:
  friend ProbeResult probe();
  Driver() = default;
  struct Api;
  std::unique_ptr<Api> api_;
  void* ctx_ = nullptr;
  int ctx_device_ = -1;
};

}  // namespace wc::smoke
