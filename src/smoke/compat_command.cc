// wheelsmoke compat: can each artifact's GPU code run on this device, or on a declared one (offline)?
#include "smoke/commands.h"

#include <CLI/CLI.hpp>
#include <map>
#include <memory>
#include <optional>

#include "facts/analyze.h"
#include "io/targets.h"
#include "pipeline/check.h"
#include "smoke/device/compat.h"
#include "smoke/device/driver.h"
#include "smoke/device/gpu_catalog.h"
#include "smoke/smoke_rules.h"
#include "util/strings.h"
#include "wheel/entry_names.h"
#include "wheelcheck_version.h"

namespace wc::smoke {

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
  RunReport report = smoke_report("artifacts");
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

}  // namespace wc::smoke
