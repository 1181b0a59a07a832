#include "smoke/device/driver.h"

#include <dlfcn.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "rng_graph/backend.h"
#include "util/parse.h"

#ifdef WC_WITH_CUDA_RUNTIME
#include <cuda_runtime_api.h>
#endif

namespace wc::smoke {

// The few driver entry points used, by their ABI (cuda.h is not needed to build this file).
using CUresult = int;
using CUdevice = int;
using CUcontext = void*;
using CUmodule = void*;

struct Driver::Api {
  void* lib = nullptr;
  CUresult (*cuInit)(unsigned) = nullptr;
  CUresult (*cuDriverGetVersion)(int*) = nullptr;
  CUresult (*cuDeviceGetCount)(int*) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice*, int) = nullptr;
  CUresult (*cuDeviceGetName)(char*, int, CUdevice) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice) = nullptr;
  CUresult (*cuDeviceTotalMem)(size_t*, CUdevice) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice) = nullptr;
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice) = nullptr;
  CUresult (*cuCtxSetCurrent)(CUcontext) = nullptr;
  CUresult (*cuModuleLoadData)(CUmodule*, const void*) = nullptr;
  CUresult (*cuModuleUnload)(CUmodule) = nullptr;
  CUresult (*cuGetErrorName)(CUresult, const char**) = nullptr;
  ~Api() {
    if (lib) dlclose(lib);
  }
};

namespace {

template <typename F>
bool bind(void* lib, F& fn, const char* name) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
  return fn != nullptr;
}

constexpr int kAttrCcMajor = 75, kAttrCcMinor = 76, kAttrSms = 16;

std::string driver_version_string() {
  std::ifstream in("/proc/driver/nvidia/version");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22 ..."
  auto k = s.find("Kernel Module");
  if (k != std::string::npos) {
    size_t p = k + 13;
    while (p < s.size() && (s[p] == ' ' || s[p] == '\t')) ++p;
    size_t e = p;
    while (e < s.size() && (is_digit(s[e]) || s[e] == '.')) ++e;
    if (e > p) return s.substr(p, e - p);
  }
  // NVML as a fallback (containers sometimes hide /proc/driver/nvidia).
  void* nvml = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!nvml) return "";
  int (*init)() = reinterpret_cast<int (*)()>(dlsym(nvml, "nvmlInit_v2"));
  int (*get)(char*, unsigned) = reinterpret_cast<int (*)(char*, unsigned)>(dlsym(nvml, "nvmlSystemGetDriverVersion"));
  char buf[96] = {0};
  std::string out;
  if (init && get && init() == 0 && get(buf, sizeof buf) == 0) out = buf;
  dlclose(nvml);
  return out;
}

}  // namespace

std::unique_ptr<Driver> Driver::open(std::string* why) {
  // Eager loading makes a module with no usable code fail at load time, not at first launch.
  setenv("CUDA_MODULE_LOADING", "EAGER", 0);
  auto api = std::make_unique<Api>();
  api->lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!api->lib) {
    if (why) *why = "no NVIDIA driver (libcuda.so.1 cannot be loaded)";
    return nullptr;
  }
  bool ok =
      bind(api->lib, api->cuInit, "cuInit") && bind(api->lib, api->cuDriverGetVersion, "cuDriverGetVersion") &&
      bind(api->lib, api->cuDeviceGetCount, "cuDeviceGetCount") && bind(api->lib, api->cuDeviceGet, "cuDeviceGet") &&
      bind(api->lib, api->cuDeviceGetName, "cuDeviceGetName") &&
      bind(api->lib, api->cuDeviceGetAttribute, "cuDeviceGetAttribute") &&
      bind(api->lib, api->cuDeviceTotalMem, "cuDeviceTotalMem_v2") &&
      bind(api->lib, api->cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain") &&
      bind(api->lib, api->cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2") &&
      bind(api->lib, api->cuCtxSetCurrent, "cuCtxSetCurrent") &&
      bind(api->lib, api->cuModuleLoadData, "cuModuleLoadData") &&
      bind(api->lib, api->cuModuleUnload, "cuModuleUnload") && bind(api->lib, api->cuGetErrorName, "cuGetErrorName");
  if (!ok) {
    if (why) *why = "libcuda.so.1 lacks a required entry point (driver too old?)";
    return nullptr;
  }
  CUresult r = api->cuInit(0);
  if (r != 0) {
    const char* name = nullptr;
    api->cuGetErrorName(r, &name);
    if (why) *why = std::string("cuInit failed: ") + (name ? name : std::to_string(r));
    return nullptr;
  }
  std::unique_ptr<Driver> d(new Driver());
  d->api_ = std::move(api);
  return d;
}

Driver::~Driver() {
  if (ctx_ && api_) api_->cuDevicePrimaryCtxRelease(ctx_device_);
}

LoadResult Driver::load_container(int device, const void* image) {
  auto name_of = [&](CUresult r) {
    const char* n = nullptr;
    api_->cuGetErrorName(r, &n);
    return std::string(n ? n : "CUDA_ERROR_" + std::to_string(r));
  };
  if (ctx_device_ != device) {
    CUdevice dev;
    CUresult r = api_->cuDeviceGet(&dev, device);
    if (r == 0) r = api_->cuDevicePrimaryCtxRetain(&ctx_, dev);
    if (r != 0) return {r, name_of(r)};
    ctx_device_ = device;
  }
  api_->cuCtxSetCurrent(ctx_);
  CUmodule mod = nullptr;
  CUresult r = api_->cuModuleLoadData(&mod, image);
  if (r != 0) return {r, name_of(r)};
  api_->cuModuleUnload(mod);
  return {0, "CUDA_SUCCESS"};
}

ProbeResult probe() {
  ProbeResult p;
#ifdef WC_WITH_CUDA_RUNTIME
  cudaRuntimeGetVersion(&p.runtime_version);
#endif
  std::string why;
  auto d = Driver::open(&why);
  if (!d) {
    p.why = why;
    return p;
  }
  p.driver_loaded = true;
  p.driver_version = driver_version_string();
  auto& api = *d->api_;
  api.cuDriverGetVersion(&p.driver_cuda_version);
  int n = 0;
  api.cuDeviceGetCount(&n);
  if (n == 0) p.why = "the driver reports no CUDA devices";
  for (int i = 0; i < n; ++i) {
    CUdevice dev;
    if (api.cuDeviceGet(&dev, i) != 0) continue;
    DeviceInfo info;
    info.index = i;
    char name[256] = {0};
    api.cuDeviceGetName(name, sizeof name, dev);
    info.name = name;
    api.cuDeviceGetAttribute(&info.cc_major, kAttrCcMajor, dev);
    api.cuDeviceGetAttribute(&info.cc_minor, kAttrCcMinor, dev);
    api.cuDeviceGetAttribute(&info.multiprocessors, kAttrSms, dev);
    size_t mem = 0;
    api.cuDeviceTotalMem(&mem, dev);
    info.memory_bytes = mem;
    p.devices.push_back(info);
  }
  return p;
}

}  // namespace wc::smoke
