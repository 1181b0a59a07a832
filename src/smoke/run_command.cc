// wheelsmoke run: the kernel suites against their CPU references, or through an artifact's PyTorch.
#include "smoke/commands.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <memory>

#include "smoke/artifact/artifact.h"
#include "smoke/artifact/venv.h"
#include "smoke/smoke_rules.h"
#include "smoke/suites/suite.h"
#include "util/json_text.h"
#include "wheelcheck_version.h"

namespace wc::smoke {

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
  RunReport report = smoke_report("suites");
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
      venv->install({a.wheel}, PipSources{a.index,
                                          a.find_links.empty() ? std::vector<std::string>()
                                                               : std::vector<std::string>{a.find_links},
                                          false});
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

}  // namespace wc::smoke
