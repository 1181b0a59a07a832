// wheelsmoke's commands, one file each (src/smoke/*_command.cc); main.cc wires them to the CLI.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli_support/cli_support.h"
#include "policy/policy.h"
#include "report/report.h"

namespace wc::smoke {

constexpr int kPass = cli::kExitPass, kFail = cli::kExitFail;

// wheelsmoke's findings use the catalogue's severities: an empty policy.
const Policy& empty_policy();
// The WS001 item of --require-gpu when no GPU was usable.
ItemResult gpu_required_item(const std::string& why);
// A report in wheelsmoke's envelope: tool, version, catalogue, and the items' key.
RunReport smoke_report(const std::string& items_key);

int run_probe(const std::string& format, bool require_gpu);

struct CompatArgs {
  std::vector<std::string> wheels;
  std::string target, gpu, driver;
  int device = 0;
  bool no_load = false, require_gpu = false;
  cli::ReportOptions out;
};
int run_compat(const CompatArgs& a);

struct RunArgs {
  std::vector<std::string> suites, cases;
  std::string backend = "auto";
  std::string python;  // artifact mode: the interpreter whose torch runs the suites
  std::string wheel;   // artifact mode: a wheel installed with its dependencies into a fresh venv
  std::string index, find_links, keep_venv;
  double case_seconds = 600;  // artifact mode: bound on each probe answer
  bool no_compile = false;    // artifact mode: skip torch.compile
  bool require_gpu = false, list = false;
  cli::ReportOptions out;
};
int run_suites(const RunArgs& a);

int run_bench(const std::string& format);
int run_artifact_bench(const std::string& python, double case_seconds, const std::string& format);
int run_rng(uint64_t seed, uint64_t subsequence, uint64_t offset, uint64_t count, bool uniform);

struct ImportArgs {
  std::vector<std::string> wheels;
  std::string python;  // an environment the wheels are already installed in
  std::string index, keep_venv, venv_python;
  std::vector<std::string> find_links;
  bool no_index = false;
  std::string policy = "default";  // wheelcheck's prediction is made with it
  double timeout = 120;            // per import (per process)
  cli::ReportOptions out;
};
int run_import(const ImportArgs& a);

}  // namespace wc::smoke
