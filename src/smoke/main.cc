// wheelsmoke: does each artifact behave on the target hardware? main() is a table of contents: each
// command lives in its own file (src/smoke/*_command.cc).
#include <CLI/CLI.hpp>
#include <string>

#include "cli_support/cli_support.h"
#include "smoke/commands.h"
#include "wheelcheck_version.h"

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

  ImportArgs ia;
  auto* im = app.add_subcommand(
      "import",
      "Install the wheels together into a fresh venv (or use --python's environment), import each, and watch "
      "what loads: failures, libraries from outside the install set, duplicate runtimes, and every place the "
      "process disagrees with wheelcheck's prediction");
  im->add_option("wheels", ia.wheels, "Wheel files (one install set)")->required();
  auto* im_python = im->add_option(
      "--python", ia.python,
      "The wheels are already installed in this interpreter's environment (a venv's python, or a wrapper script)");
  im->add_option("--index", ia.index, "The package index pip installs the dependencies from")->excludes(im_python);
  im->add_option("--find-links", ia.find_links, "A folder of wheels pip may install from (repeatable)")
      ->excludes(im_python);
  im->add_flag("--no-index", ia.no_index, "Dependencies only from --find-links folders")->excludes(im_python);
  im->add_option("--keep-venv", ia.keep_venv, "The venv folder to create or reuse (kept afterwards)")
      ->excludes(im_python);
  im->add_option("--venv-python", ia.venv_python,
                 "The interpreter the fresh venv is made from (default: python3 on PATH; match the wheels' tag)")
      ->excludes(im_python);
  im->add_option("-p,--policy", ia.policy, "wheelcheck's policy for the prediction (a shipped name or a file)")
      ->capture_default_str();
  im->add_option("--timeout", ia.timeout, "Seconds one import may take (its process group is killed then)")
      ->capture_default_str()
      ->check(CLI::Range(1.0, 86400.0));
  wc::cli::add_report_options(im, ia.out);

  if (auto rc = wc::cli::parse(app, argc, argv)) return *rc;
  return wc::cli::guarded("wheelsmoke", [&]() -> int {
    if (*p) return run_probe(probe_format, probe_require);
    if (*c) return run_compat(ca);
    if (*r) return run_suites(ra);
    if (*im) return run_import(ia);
    if (*b)
      return bench_python.empty() ? run_bench(bench_format)
                                  : run_artifact_bench(bench_python, bench_case_seconds, bench_format);
    return run_rng(seed, sub, off, count, uniform);
  });
}
