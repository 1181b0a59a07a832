// wheelsmoke bench: the suites' kernels timed on the device (or the CPU references, said so), or
// the artifact's own torch.
#include "smoke/commands.h"

#include <chrono>
#include <cstdio>
#include <iostream>

#include "dtensor_view/view.h"
#include "pad_concat/pad.h"
#include "philox.h"
#include "rng_graph/backend.h"
#include "smoke/artifact/artifact.h"
#include "wheelcheck_version.h"

namespace wc::smoke {

// bench --python: the artifact's eager F.pad against its torch.compile'd pad-as-concatenation
// pattern (a producer feeding the pad and a second consumer), on its GPU where it has one, else on
// the CPU and said so. Medians of timed runs after warm-up (CUDA events on a GPU).
int run_artifact_bench(const std::string& python, double case_seconds, const std::string& format) {
  bool text = format != "json";
  nlohmann::json j = {{"tool", "wheelsmoke"}, {"version", WHEELCHECK_VERSION}};
  try {
    Probe probe(python, case_seconds);
    const nlohmann::json& hello = probe.artifact();
    std::string why = artifact_cuda_unavailable(probe, true);
    const std::string device = why.empty() ? "cuda" : "cpu";
    j["artifact"] = {{"python", hello.value("python", python)},
                     {"torch", hello.value("torch", "")},
                     {"torch_cuda", hello.value("cuda", nlohmann::json())},
                     {"device", hello.value("device", "")}};
    if (text) {
      std::printf("artifact: torch %s under %s\n", hello.value("torch", std::string("?")).c_str(), python.c_str());
      if (!why.empty())
        std::printf("GPU: none (%s); timing on the CPU, not device numbers\n", why.c_str());
      else
        std::printf("GPU: %s\n", hello.value("device", std::string("?")).c_str());
      std::printf("  %-10s %-14s %10s %12s %8s %12s\n", "bytes", "shape", "eager ms", "compiled ms", "speedup",
                  "compiled GB/s");
    }
    std::vector<int64_t> rows_of = {256, 4096};
    if (device == "cuda") rows_of.push_back(65536);
    nlohmann::json rows = nlohmann::json::array();
    for (int64_t r : rows_of) {
      std::vector<int64_t> shape = {r, 1024};
      nlohmann::json a = probe.ask({{"op", "pad_timing"},
                                    {"dtype", "float32"},
                                    {"shape", shape},
                                    {"pad", {0, 24}},
                                    {"fill", 0},
                                    {"device", device},
                                    {"iters", 20},
                                    {"warmup", 3}});
      if (!a.value("ok", false))
        throw std::runtime_error("torch raised " + a.value("error_type", std::string("?")) + ": " +
                                 a.value("message", std::string()));
      double eager = a.value("eager_ms", 0.0), compiled = a.value("compiled_ms", 0.0);
      double moved = a.value("bytes_moved", 0.0), bytes = double(r) * 1024 * 4;
      rows.push_back({{"input_bytes", bytes},
                      {"shape", shape},
                      {"pad", {0, 24}},
                      {"eager_ms", eager},
                      {"compiled_ms", compiled},
                      {"bytes_moved", moved},
                      {"compiled_speedup", compiled > 0 ? eager / compiled : 0}});
      if (text)
        std::printf("  %-10.0f %-14s %10.3f %12.3f %7.2fx %12.1f\n", bytes,
                    ("[" + std::to_string(r) + ", 1024]").c_str(), eager, compiled, compiled > 0 ? eager / compiled : 0,
                    compiled > 0 ? moved / (compiled / 1e3) / 1e9 : 0);
    }
    j["artifact_pad"] = {{"device", device}, {"rows", rows}};
    if (!why.empty()) j["artifact_pad"]["cuda_skipped"] = why;
  } catch (const std::exception& e) {
    std::cerr << "wheelsmoke bench: " << e.what() << "\n";
    return cli::kExitUsage;
  }
  if (!text) std::cout << j.dump(2) << "\n";
  return kPass;
}

// Times the suites' kernels. On a GPU: the pad implementations over 1 MiB .. 1 GiB (bytes moved,
// fraction of the peak bandwidth the driver reports), the strided copy, Philox vs curand. Without
// one it says so and times the CPU references, so the numbers are never mistaken for device ones.
int run_bench(const std::string& format) {
  using clock = std::chrono::steady_clock;
  auto secs = [](clock::time_point t0) { return std::chrono::duration<double>(clock::now() - t0).count(); };
  nlohmann::json j = {{"tool", "wheelsmoke"}, {"version", WHEELCHECK_VERSION}};
  bool text = format != "json";
  // CPU references (always): Philox words/s on one core, the plain pad of 16 MiB, a transposed view.
  const uint32_t threads = 1u << 16, per = 64;
  auto t0 = clock::now();
  uint64_t sink = 0;
  for (uint32_t t = 0; t < threads / 16; ++t) {
    auto st = philox::Stream::init(42, t, 0);
    for (uint32_t k = 0; k < per; ++k) sink += st.next();
  }
  double cpu_rate = double(threads / 16) * per / secs(t0);
  auto cpu_pad = pad::make_cpu_backend();
  pad::Tensor x = pad::arange({4096, 1000}, pad::DType::f32);
  t0 = clock::now();
  auto r = cpu_pad->plain(x, pad::Producer::twice, {0, 24}, 0);
  double pad_s = secs(t0);
  sink += r.out.data.size();
  t0 = clock::now();
  auto rc = cpu_pad->concat(x, pad::Producer::twice, pad::CatRewrite{1, 24}, 0);
  double cat_s = secs(t0);
  sink += rc.out.data.size();
  dtv::Tensor big = dtv::arange({1024, 1024});
  t0 = clock::now();
  auto tv = dtv::apply(dtv::strided_map({"transpose", {0, 1}}, {1024, 1024}, {1024, 1024}), big);
  double tr_s = secs(t0);
  sink += uint64_t(tv.data.back());
  j["cpu"] = {{"philox_words_per_s", cpu_rate},
              {"pad_plain_16MiB_s", pad_s},
              {"pad_concat_16MiB_s", cat_s},
              {"transpose_8MiB_int64_s", tr_s},
              {"checksum", sink}};
  if (text) {
    std::printf("CPU references (one core):\n");
    std::printf("  rng_graph/fill      %.3g words/s\n", cpu_rate);
    std::printf("  pad_concat plain    16 MiB float32 in %.1f ms; concat rewrite %.1f ms (%.2fx)\n", pad_s * 1e3,
                cat_s * 1e3, pad_s / cat_s);
    std::printf("  dtensor_view        transpose of 1024x1024 int64 in %.1f ms\n", tr_s * 1e3);
  }
  std::string why;
  pad::DeviceBandwidth bw;
  std::vector<int64_t> sizes;
  for (int64_t sz = int64_t(1) << 20; sz <= (int64_t(1) << 30); sz *= 4) sizes.push_back(sz);
  auto rows = pad::device_pad_bench(sizes, &bw, &why);
  if (rows.empty()) {
    j["cuda_skipped"] = why;
    if (text)
      std::printf("GPU: skipped (%s); the figures above are CPU references, not device numbers\n", why.c_str());
    else
      std::cout << j.dump(2) << "\n";
    return kPass;
  }
  double gpu_rate = rng::device_fill_rate(threads * 16, per, 20, &why);
  double curand_rate = rng::device_curand_fill_rate(threads * 16, per, 20, &why);
  double peak = 0;
  double strided = dtv::device_strided_copy_rate(int64_t(1) << 30, &peak, &why);
  nlohmann::json pads = nlohmann::json::array();
  if (text) {
    std::printf("GPU: %s, peak DRAM bandwidth %.0f GB/s (memory clock x bus width from the driver)\n",
                bw.device.c_str(), bw.peak_bytes_per_s / 1e9);
    std::printf("  %-10s %10s %10s %8s %10s %8s %13s %13s %8s\n", "bytes", "plain ms", "GB/s", "peak", "concat ms",
                "peak", "multi plain", "multi concat", "speedup");
  }
  for (const auto& b : rows) {
    double plain_bw = b.moved_plain / (b.ms_plain / 1e3), concat_bw = b.moved_concat / (b.ms_concat / 1e3);
    pads.push_back({{"bytes", b.bytes},
                    {"plain_ms", b.ms_plain},
                    {"concat_ms", b.ms_concat},
                    {"multi_plain_ms", b.ms_multi_plain},
                    {"multi_concat_ms", b.ms_multi_concat},
                    {"plain_bytes_moved", b.moved_plain},
                    {"concat_bytes_moved", b.moved_concat},
                    {"plain_fraction_of_peak", plain_bw / bw.peak_bytes_per_s},
                    {"concat_fraction_of_peak", concat_bw / bw.peak_bytes_per_s},
                    {"multi_consumer_speedup", b.ms_multi_plain / b.ms_multi_concat}});
    if (text)
      std::printf("  %-10lld %10.3f %10.1f %7.0f%% %10.3f %7.0f%% %13.3f %13.3f %7.2fx\n", (long long)b.bytes,
                  b.ms_plain, plain_bw / 1e9, 100 * plain_bw / bw.peak_bytes_per_s, b.ms_concat,
                  100 * concat_bw / bw.peak_bytes_per_s, b.ms_multi_plain, b.ms_multi_concat,
                  b.ms_multi_plain / b.ms_multi_concat);
  }
  j["cuda"] = {{"device", bw.device},
               {"peak_bytes_per_s", bw.peak_bytes_per_s},
               {"pad", pads},
               {"philox_words_per_s", gpu_rate},
               {"curand_words_per_s", curand_rate},
               {"strided_copy_bytes_per_s", strided}};
  if (text) {
    std::printf("  targets: plain pad >= 85%% of peak on large sizes; multi-consumer concat >= 1.3x the plain pad\n");
    std::printf("  dtensor_view strided copy (transpose, 1 GiB int64): %.1f GB/s, %.0f%% of peak\n", strided / 1e9,
                peak > 0 ? 100 * strided / peak : 0);
    std::printf("  rng_graph/fill %.3g words/s; curand's generator %.3g words/s (%.2fx)\n", gpu_rate, curand_rate,
                curand_rate > 0 ? gpu_rate / curand_rate : 0);
  } else {
    std::cout << j.dump(2) << "\n";
  }
  return kPass;
}

}  // namespace wc::smoke
