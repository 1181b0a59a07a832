// wheelsmoke probe: the GPU, its compute capability, the driver and runtime versions.
#include "smoke/commands.h"

#include <iostream>

#include "rng_graph/backend.h"
#include "smoke/device/driver.h"
#include "wheelcheck_version.h"

namespace wc::smoke {

int run_probe(const std::string& format, bool require_gpu) {
  ProbeResult p = probe();
  nlohmann::json devs = nlohmann::json::array();
  for (const auto& d : p.devices)
    devs.push_back({{"index", d.index},
                    {"name", d.name},
                    {"compute_capability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor)},
                    {"memory_bytes", d.memory_bytes},
                    {"multiprocessors", d.multiprocessors}});
  auto cuda_text = [](int v) {
    return v ? std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10) : std::string();
  };
  if (format == "json") {
    nlohmann::json j = {{"schema", "wheelcheck-report/1"},
                        {"tool", "wheelsmoke"},
                        {"version", WHEELCHECK_VERSION},
                        {"driver_loaded", p.driver_loaded},
                        {"driver_version", p.driver_version},
                        {"driver_cuda_version", cuda_text(p.driver_cuda_version)},
                        {"runtime_version", cuda_text(p.runtime_version)},
                        {"cuda_built", rng::cuda_built()},
                        {"devices", devs}};
    if (!p.why.empty()) j["why"] = p.why;
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << "wheelsmoke " << WHEELCHECK_VERSION
              << (rng::cuda_built() ? " (CUDA kernels built" : " (built without CUDA")
              << (p.runtime_version ? ", runtime " + cuda_text(p.runtime_version) : "") << ")\n";
    if (!p.driver_loaded)
      std::cout << "driver:  none: " << p.why << "\n";
    else
      std::cout << "driver:  " << (p.driver_version.empty() ? "?" : p.driver_version) << " (CUDA "
                << cuda_text(p.driver_cuda_version) << ")\n";
    for (const auto& d : p.devices)
      std::cout << "gpu " << d.index << ":   " << d.name << ", compute capability " << d.cc_major << "." << d.cc_minor
                << ", " << d.memory_bytes / (1024 * 1024) << " MiB, " << d.multiprocessors << " SMs\n";
    if (p.driver_loaded && p.devices.empty()) std::cout << "gpu:     none: " << p.why << "\n";
  }
  return require_gpu && p.devices.empty() ? kFail : kPass;
}

}  // namespace wc::smoke
