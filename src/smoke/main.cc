// wheelsmoke: does each artifact behave on the target hardware? main() is a table of contents.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli_support/cli_support.h"
#include "dtensor_view/view.h"
#include "facts/analyze.h"
#include "io/targets.h"
#include "pad_concat/pad.h"
#include "philox.h"
#include "pipeline/check.h"
#include "policy/policy.h"
#include "report/report.h"
#include "rng_graph/backend.h"
#include "smoke/artifact.h"
#include "smoke/compat.h"
#include "smoke/driver.h"
#include "smoke/gpu_catalog.h"
#include "smoke/smoke_rules.h"
#include "smoke/suite.h"
#include "util/json_text.h"
#include "util/strings.h"
#include "wheel/entry_names.h"
#include "wheelcheck_version.h"

namespace wc::smoke {
namespace {

constexpr int kPass = cli::kExitPass, kFail = cli::kExitFail;
using Output = cli::ReportOptions;

Policy& empty_policy() {
  static Policy p;  // wheelsmoke findings use the catalogue's severities
  return p;
}

ItemResult gpu_required_item(const std::string& why) {
  ItemResult item;
  item.path = "gpu";
  FindingSink s(empty_policy(), smoke_rules());
  s.add("WS001", "--require-gpu: " + why);
  item.findings = s.take();
  return item;
}

// ---- probe ----------------------------------------------------------------------------------------

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

// ---- compat ---------------------------------------------------------------------------------------

struct CompatArgs {
  std::vector<std::string> wheels;
  std::string target, gpu, driver;
  int device = 0;
  bool no_load = false, require_gpu = false;
  Output out;
};

int run_compat(const CompatArgs& a) {
  std::optional<Target> declared;
  if (!a.target.empty() || !a.gpu.empty()) {
    Target t;
    if (!a.gpu.empty()) {
      auto cc = gpu_compute_capability(a.gpu);
      if (!cc)
        throw CLI::ValidationError(
            "--gpu", "unknown GPU '" + a.gpu + "'; known: " + join(known_gpus(), ", ") + " (or use --target sm_XY)");
      t.label = a.gpu;
      t.cc_major = cc->first, t.cc_minor = cc->second;
    } else {
      auto cc = parse_sm(a.target);
      if (!cc) throw CLI::ValidationError("--target", "expected sm_XY or X.Y, got '" + a.target + "'");
      t.label = a.target;
      t.cc_major = cc->first, t.cc_minor = cc->second;
    }
    if (!a.driver.empty()) {
      if (!driver_cuda_version(a.driver))
        throw CLI::ValidationError(
            "--driver",
            "'" + a.driver + "' is not a Linux driver version this tool knows (>= 520.61.05, e.g. 550.54.14)");
      t.driver = a.driver;
    }
    declared = t;
  } else if (!a.driver.empty()) {
    throw CLI::ValidationError("--driver", "--driver needs --target or --gpu (on a device the driver is probed)");
  }
  auto paths = expand_targets(a.wheels);
  RunReport report;
  report.tool = "wheelsmoke";
  report.version = WHEELCHECK_VERSION;
  report.items_key = "artifacts";
  report.rules = smoke_rules();
  std::optional<Target> device_target;
  std::unique_ptr<Driver> drv;
  std::string no_device;
  if (!declared) {
    ProbeResult p = probe();
    if (p.devices.size() > static_cast<size_t>(a.device)) {
      const auto& d = p.devices[static_cast<size_t>(a.device)];
      device_target = Target{d.name, d.cc_major, d.cc_minor,
                             p.driver_version.empty() ? std::nullopt : std::optional(p.driver_version)};
      if (!a.no_load) drv = Driver::open(&no_device);
    } else {
      no_device = p.why.empty() ? "no CUDA device " + std::to_string(a.device) : p.why;
    }
  }
  Policy policy = load_policy("default");
  AnalyzeOptions opt = analyze_options_for(policy);
  std::vector<VariantCandidate> candidates;
  std::map<std::string, bool> runs;  // file name -> no error finding
  for (const auto& path : paths) {
    WheelFacts f = std::move(analyze_all({path}, opt, 1).front());  // the pipeline's per-wheel error boundary
    candidates.push_back({std::string(last_component(path)), f.filename, f.variant});
    ItemResult item;
    item.path = path;
    FindingSink sink(empty_policy(), smoke_rules());
    for (const auto& p : f.unreadable) sink.add("WC404", p.message, p.entry, p.offset);
    const Target* t = declared ? &*declared : device_target ? &*device_target : nullptr;
    if (!t) {
      item.skipped = true;
      item.skip_reason = "no target: " + no_device + " (declare one with --target sm_XY or --gpu NAME, and --driver)";
    } else {
      try {
        compat_findings(f, *t, sink);
        if (drv) load_containers(path, f, *drv, a.device, sink);
      } catch (const std::exception& e) {  // one artifact's failure never stops the batch
        sink.add("WC404", std::string("compat stopped by an internal error: ") + e.what());
      }
    }
    item.findings = sink.take();
    runs[std::string(last_component(path))] = !item.skipped && !has_errors(item.findings);
    nlohmann::json bins = nlohmann::json::array();
    for (const auto& b : f.binaries)
      if (!b.fatbin.empty()) bins.push_back({{"path", b.path}, {"sass", b.fatbin.sass()}, {"ptx", b.fatbin.ptx()}});
    item.facts = {{"gpu_binaries", bins}};
    if (t)
      item.facts["target"] = {{"label", t->label},
                              {"compute_capability", std::to_string(t->cc_major) + "." + std::to_string(t->cc_minor)},
                              {"driver", t->driver.value_or("")},
                              {"loaded_on_device", drv != nullptr}};
    report.items.push_back(std::move(item));
  }
  if (a.require_gpu && !declared && !device_target) report.items.push_back(gpu_required_item(no_device));
  if (const Target* t = declared ? &*declared : device_target ? &*device_target : nullptr)
    for (auto& sel : select_variants(candidates, *t)) {
      VariantChoice c{sel.project, sel.version, sel.tags, sel.selected, sel.order, sel.incompatible, std::nullopt};
      if (!sel.selected.empty()) c.selected_runs = runs[sel.selected];
      report.variant_choices.push_back(std::move(c));
    }
  return cli::emit_reports(report, a.out);
}

// ---- run ------------------------------------------------------------------------------------------

struct RunArgs {
  std::vector<std::string> suites, cases;
  std::string backend = "auto";
  std::string python;  // artifact mode: the interpreter whose torch runs the suites
  std::string wheel;   // artifact mode: a wheel installed with its dependencies into a fresh venv
  std::string index, find_links, keep_venv;
  double case_seconds = 600;  // artifact mode: bound on each probe answer
  bool no_compile = false;    // artifact mode: skip torch.compile
  bool require_gpu = false, list = false;
  Output out;
};

// A venv for --wheel: created with the python3 on PATH (or reused from --keep-venv), removed at the
// end unless kept.
class TempVenv {
 public:
  explicit TempVenv(const std::string& keep) : keep_(!keep.empty()) {
    if (keep_) {
      dir_ = std::filesystem::absolute(keep).string();
    } else {
      char tmpl[] = "/tmp/wheelsmoke-venv-XXXXXX";
      if (!mkdtemp(tmpl)) throw std::runtime_error("cannot create a folder for the venv");
      dir_ = tmpl;
    }
    log_ = dir_ + ".log";
    if (!std::filesystem::exists(python()) && sh("python3 -m venv " + quote(dir_)) != 0)
      throw std::runtime_error("python3 -m venv " + dir_ + " failed" + tail());
  }
  ~TempVenv() {
    std::error_code ec;
    if (!keep_) std::filesystem::remove_all(dir_, ec);
    std::filesystem::remove(log_, ec);
  }
  std::string python() const { return dir_ + "/bin/python"; }
  const std::string& dir() const { return dir_; }
  void install(const std::string& wheel, const std::string& index, const std::string& find_links) {
    if (!std::filesystem::is_regular_file(wheel)) throw std::runtime_error(wheel + ": no such wheel file");
    std::string cmd = quote(python()) + " -m pip install --disable-pip-version-check -q";
    if (!index.empty()) cmd += " --index-url " + quote(index);
    if (!find_links.empty()) cmd += " --find-links " + quote(find_links);
    cmd += " " + quote(std::filesystem::absolute(wheel).string());
    if (sh(cmd) != 0) throw std::runtime_error("pip could not install " + wheel + " into " + dir_ + tail());
  }

 private:
  std::string dir_, log_;
  bool keep_;
  static std::string quote(const std::string& s) {
    std::string o = "'";
    for (char c : s) o += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return o + "'";
  }
  int sh(const std::string& cmd) const { return std::system((cmd + " >>" + quote(log_) + " 2>&1").c_str()); }
  std::string tail() const {
    std::ifstream in(log_);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto lines = split(text, '\n');
    std::vector<std::string> keep;
    for (auto it = lines.rbegin(); it != lines.rend() && keep.size() < 3; ++it)
      if (!trim(*it).empty()) keep.insert(keep.begin(), std::string(trim(*it)));
    return keep.empty() ? "" : ": " + clip_for_display(join(keep, " | "), 500);
  }
};

int run_suites(const RunArgs& a) {
  auto suites = all_suites();
  if (a.list) {
    for (const auto& s : suites) std::cout << s->name() << "  " << s->description() << "\n";
    return kPass;
  }
  std::vector<Suite*> chosen;
  for (const auto& s : suites)
    if (a.suites.empty() || std::find(a.suites.begin(), a.suites.end(), s->name()) != a.suites.end())
      chosen.push_back(s.get());
  for (const auto& want : a.suites)
    if (std::none_of(suites.begin(), suites.end(), [&](const auto& s) { return s->name() == want; }))
      throw CLI::ValidationError("--suite", "unknown suite '" + want + "' (wheelsmoke run --list)");
  for (const auto& file : a.cases) {
    nlohmann::json doc = read_json_file(file);
    std::string target =
        doc.is_object() && doc.contains("suite") && doc["suite"].is_string() ? doc["suite"].get<std::string>() : "";
    if (target.empty() && chosen.size() == 1) target = chosen[0]->name();
    auto it = std::find_if(chosen.begin(), chosen.end(), [&](Suite* s) { return s->name() == target; });
    if (it == chosen.end())
      throw std::runtime_error(
          file + ": say which suite the cases are for (\"suite\": \"rng_graph\") or pass exactly one --suite");
    try {
      (*it)->add_cases(doc);
    } catch (const std::exception& e) {
      throw std::runtime_error(file + ": " + e.what());
    }
  }
  RunContext ctx;
  if (a.backend == "cpu")
    ctx.want_cuda = false;
  else if (a.backend == "cuda")
    ctx.want_cpu = false;
  else if (a.backend != "auto")
    throw CLI::ValidationError("--backend", "expected cpu, cuda or auto");
  RunReport report;
  report.tool = "wheelsmoke";
  report.version = WHEELCHECK_VERSION;
  report.items_key = "suites";
  report.rules = smoke_rules();
  report.item_label = "cases";
  std::unique_ptr<Probe> probe;
  nlohmann::json artifact;
  std::string python = a.python;
  std::unique_ptr<TempVenv> venv;
  if (!a.wheel.empty()) {
    // As a release validation job does: a fresh venv, the wheel and its dependencies from pip.
    ItemResult item;
    item.path = "install [" + a.wheel + "]";
    FindingSink sink(empty_policy(), smoke_rules());
    try {
      venv = std::make_unique<TempVenv>(a.keep_venv);
      venv->install(a.wheel, a.index, a.find_links);
      python = venv->python();
      item.facts = {{"venv", venv->dir()}, {"wheel", a.wheel}};
    } catch (const std::exception& e) {
      sink.add("WS203", e.what());
    }
    item.findings = sink.take();
    report.items.push_back(std::move(item));
    if (python.empty()) return cli::emit_reports(report, a.out);
  }
  if (!python.empty()) {
    // Artifact mode: the artifact's PyTorch, named in the report; a probe that cannot start is one
    // WS203 finding naming the interpreter, and no suite runs.
    ItemResult item;
    item.path = "artifact [" + python + "]";
    FindingSink sink(empty_policy(), smoke_rules());
    try {
      probe = std::make_unique<Probe>(python, a.case_seconds);
      artifact = probe->artifact();
      item.facts = {{"artifact",
                     {{"python", artifact.value("python", python)},
                      {"torch", artifact.value("torch", "")},
                      {"torch_cuda", artifact.value("cuda", nlohmann::json())},
                      {"device", artifact.value("device", "")}}}};
      ctx.probe = probe.get();
      ctx.compiled = !a.no_compile;
    } catch (const ProbeError& e) {
      sink.add("WS203", e.what());
    }
    item.findings = sink.take();
    report.items.push_back(std::move(item));
    if (!ctx.probe) return cli::emit_reports(report, a.out);
  }
  bool gpu_missing = false;
  std::string gpu_why;
  for (Suite* s : chosen) {
    for (const auto& o : s->run(ctx)) {
      ItemResult item;
      item.path = o.suite + "/" + o.name + " [" + o.backend + "]";
      item.facts = {{"suite", o.suite}, {"case", o.name}, {"backend", o.backend}, {"ms", o.ms}};
      if (ctx.probe) item.facts["artifact"] = {{"torch", artifact.value("torch", "")}, {"python", python}};
      if (!o.skipped && !o.passed && o.message.rfind("the probe under ", 0) == 0) {
        FindingSink sink(empty_policy(), smoke_rules());
        sink.add("WS203", o.message);
        item.findings = sink.take();
        report.items.push_back(std::move(item));
        continue;
      }
      if (o.skipped) {
        item.skipped = true;
        item.skip_reason = o.message;
        if (o.backend == "cuda" ||
            (o.backend == "artifact-cuda" && o.message.rfind("the artifact's torch sees no CUDA device", 0) == 0))
          gpu_missing = true, gpu_why = o.message;
      } else if (!o.passed) {
        FindingSink sink(empty_policy(), smoke_rules());
        sink.add(o.error ? "WS202" : "WS201", o.message);
        item.findings = sink.take();
      }
      report.items.push_back(std::move(item));
    }
  }
  if (a.require_gpu && gpu_missing) report.items.push_back(gpu_required_item(gpu_why));
  return cli::emit_reports(report, a.out);
}

// ---- bench, rng -----------------------------------------------------------------------------------

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

int run_rng(uint64_t seed, uint64_t subsequence, uint64_t offset, uint64_t count, bool uniform) {
  auto s = philox::Stream::init(seed, subsequence, offset);
  for (uint64_t i = 0; i < count; ++i) {
    uint32_t w = s.next();
    if (uniform)
      std::printf("%08x %.9g\n", w, double(philox::uniform(w)));
    else
      std::printf("%08x%c", w, (i % 8 == 7 || i + 1 == count) ? '\n' : ' ');
  }
  return kPass;
}

}  // namespace
}  // namespace wc::smoke

int main(int argc, char** argv) {
  using namespace wc::smoke;
  CLI::App app{"wheelsmoke: confirm wheels' GPU code and kernel suites behave on the target hardware"};
  app.set_version_flag("--version", std::string("wheelsmoke ") + WHEELCHECK_VERSION);
  app.require_subcommand(1);

  std::string probe_format = "text";
  bool probe_require = false;
  auto* p = app.add_subcommand("probe", "GPU, compute capability, driver and runtime versions");
  p->add_option("-f,--format", probe_format, "text or json")->check(CLI::IsMember({"text", "json"}));
  p->add_flag("--require-gpu", probe_require, "Exit 1 when no GPU is usable");

  CompatArgs ca;
  auto* c =
      app.add_subcommand("compat", "Can each wheel's GPU code run on this device, or on a declared one (offline)?");
  c->add_option("wheels", ca.wheels, "Wheel files, directories, URLs")->required();
  c->add_option("--target", ca.target, "Declared compute capability: sm_90, 9.0");
  c->add_option("--gpu", ca.gpu, "Declared GPU by name: H100, A100, T4, RTX 5090 ...");
  c->add_option("--driver", ca.driver, "Declared Linux driver version, e.g. 550.54.14");
  c->add_option("--device", ca.device, "Which local GPU to test (default 0)");
  c->add_flag("--no-load", ca.no_load, "On a device: analyse only, do not load the fatbins through the driver");
  c->add_flag("--require-gpu", ca.require_gpu, "Without --target/--gpu, a missing GPU is exit 1 instead of a skip");
  wc::cli::add_report_options(c, ca.out);

  RunArgs ra;
  auto* r = app.add_subcommand("run", "Run the kernel suites against their CPU references");
  r->add_option("--suite", ra.suites, "Suite name (repeatable; default all)");
  r->add_option("--backend", ra.backend, "cpu, cuda or auto")->capture_default_str();
  r->add_option("--cases", ra.cases, "Extra cases: FILE.json (repeatable)");
  r->add_flag("--require-gpu", ra.require_gpu, "A missing GPU fails the run instead of skipping the GPU cases");
  r->add_option("--python", ra.python,
                "Artifact mode: run the suites through the PyTorch this interpreter imports (a venv's python)");
  r->add_option("--case-timeout", ra.case_seconds, "Artifact mode: seconds one probe answer may take (default 600)")
      ->check(CLI::Range(1.0, 86400.0));
  r->add_flag("--no-compile", ra.no_compile, "Artifact mode: leave out the torch.compile (Inductor) cases");
  auto* wheel_opt = r->add_option("--wheel", ra.wheel,
                                  "Artifact mode: install this wheel and its dependencies into a fresh venv (pip) "
                                  "and run the suites through it");
  wheel_opt->excludes(r->get_option("--python"));
  r->add_option("--index", ra.index, "With --wheel: the package index pip installs the dependencies from")
      ->needs(wheel_opt);
  r->add_option("--find-links", ra.find_links, "With --wheel: a folder of wheels pip may install from")
      ->needs(wheel_opt);
  r->add_option("--keep-venv", ra.keep_venv, "With --wheel: the venv folder to create or reuse (kept afterwards)")
      ->needs(wheel_opt);
  r->add_flag("--list", ra.list, "List the suites");
  wc::cli::add_report_options(r, ra.out);

  std::string bench_format = "text";
  auto* b = app.add_subcommand("bench", "Time the suites' kernels (device vs the CPU reference)");
  b->add_option("-f,--format", bench_format, "text or json")->check(CLI::IsMember({"text", "json"}));
  std::string bench_python;
  double bench_case_seconds = 600;
  b->add_option("--python", bench_python,
                "Time the artifact's torch instead: eager F.pad vs its torch.compile'd pad-as-concat pattern");
  b->add_option("--case-timeout", bench_case_seconds, "With --python: seconds one timing may take (default 600)");

  uint64_t seed = 0, sub = 0, off = 0, count = 8;
  bool uniform = false;
  auto* g =
      app.add_subcommand("rng", "Print the Philox4x32-10 stream (curand_init(seed, subsequence, offset); curand())");
  g->add_option("--seed", seed)->capture_default_str();
  g->add_option("--subsequence", sub)->capture_default_str();
  g->add_option("--offset", off)->capture_default_str();
  g->add_option("--count", count)->capture_default_str()->check(CLI::Range(uint64_t(0), uint64_t(1) << 32));
  g->add_flag("--uniform", uniform, "Also print curand_uniform's float for each word");

  if (auto rc = wc::cli::parse(app, argc, argv)) return *rc;
  return wc::cli::guarded("wheelsmoke", [&]() -> int {
    if (*p) return run_probe(probe_format, probe_require);
    if (*c) return run_compat(ca);
    if (*r) return run_suites(ra);
    if (*b)
      return bench_python.empty() ? run_bench(bench_format)
                                  : run_artifact_bench(bench_python, bench_case_seconds, bench_format);
    return run_rng(seed, sub, off, count, uniform);
  });
}
