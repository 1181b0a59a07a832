// `wheelcheck check`: the project's configuration under the flags, then the pipeline.
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "io/targets.h"
#include "pipeline/check.h"
#include "policy/project_config.h"
#include "util/parse.h"
#include "util/strings.h"

namespace wc {
namespace {

// The project's [tool.wheelcheck] (pyproject.toml, found from the current directory upward) under
// the flags: --policy replaces its policy (its waivers, rules and release matrix still apply on
// top), --ignore/--select replace its lists, --strict or its strict makes warnings fail.
Policy apply_project_config(CheckArgs& a) {
  std::optional<ProjectConfig> cfg;
  if (!a.config.empty()) {
    cfg = read_project_config(a.config);
    if (!cfg) throw std::runtime_error(a.config + ": no [tool.wheelcheck] table");
  } else if (!a.no_config) {
    cfg = find_project_config(".");
  }
  if (!cfg) return load_policy(a.policy);
  if (a.out.ignore.empty() && cfg->ignore) a.out.ignore = *cfg->ignore;
  if (a.out.select.empty() && cfg->select) a.out.select = *cfg->select;
  a.out.strict = a.out.strict || cfg->strict.value_or(false);
  namespace fs = std::filesystem;
  const std::string dir = fs::path(cfg->file).parent_path().string();
  std::error_code ec;
  // A policy file named on the command line is relative to the current directory; one named in
  // pyproject.toml, to pyproject.toml.
  std::string base;
  if (a.policy_given)
    base = fs::is_regular_file(a.policy, ec) ? fs::absolute(a.policy, ec).string() : a.policy;
  else if (cfg->policy)
    base =
        fs::is_regular_file(fs::path(dir) / *cfg->policy, ec) ? (fs::path(dir) / *cfg->policy).string() : *cfg->policy;
  else
    base = a.policy;
  if (cfg->policy_overlay.empty()) return load_policy(base);
  nlohmann::json overlay = cfg->policy_overlay;
  overlay["extends"] = base;
  return load_policy_document(overlay, cfg->file + " [tool.wheelcheck]", dir);
}

}  // namespace

int run_check(CheckArgs& a) {
  Policy policy = apply_project_config(a);
  cli::report_targets(a.out);  // a bad --format is exit 2 before any wheel is read
  CheckRequest req;
  req.targets = a.targets;
  req.match = a.match;
  req.jobs = a.jobs;
  req.binaries = !a.no_binaries;
  req.depth = a.depth == "metadata" ? Depth::metadata : Depth::full;
  req.baseline = a.baseline;
  req.resolve_deps = a.resolve_deps;
  req.trusted_root = a.trusted_root;
  req.provenance_dir = a.provenance_dir;
  if (!a.shard.empty()) {
    auto slash = a.shard.find('/');
    auto i =
        slash == std::string::npos ? std::nullopt : parse_decimal(std::string_view(a.shard).substr(0, slash), 10000);
    auto n =
        slash == std::string::npos ? std::nullopt : parse_decimal(std::string_view(a.shard).substr(slash + 1), 10000);
    if (!i || !n || *i < 1 || *i > *n)
      throw std::runtime_error("--shard '" + escape_for_display(a.shard) +
                               "': expected I/N with 1 <= I <= N (e.g. 2/8)");
    req.shard_index = static_cast<unsigned>(*i);
    req.shard_count = static_cast<unsigned>(*n);
  }
  req.include_facts = a.facts;
  // The progress line names the wheel being read (the one a slow download is waiting on), with how
  // many are done; it is cleared at the end.
  auto finished = std::make_shared<std::atomic<size_t>>(0);
  if (!a.quiet && ::isatty(STDERR_FILENO)) {
    req.progress = [finished](size_t done, size_t total, const std::string&) {
      *finished = done;
      if (done == total) std::cerr << "\r\033[K" << std::flush;
    };
    req.started = [finished](const std::string& path) {
      std::cerr << "\r\033[K[" << finished->load() << " done] reading " << escape_for_display(target_basename(path))
                << std::flush;
    };
  }
  RunReport report = wc::run_check(req, policy);
  report.version = a.version;
  return cli::emit_reports(report, a.out);
}

const char* const kCheckFooter = R"(Examples:
  wheelcheck check dist/                                   # every wheel of a build
  wheelcheck check dist/*.whl --policy pytorch --json      # a project policy, JSON on stdout
  wheelcheck check https://pypi.org/simple/torch/ --match '*cp312*manylinux*' --depth metadata
  wheelcheck check nightly/ --baseline last.json --report junit:gate.xml --report sarif:gate.sarif
  wheelcheck check dist/ --ignore WC107,WC5* --strict

Environment:
  WHEELCHECK_HTTP_TIMEOUT          seconds a stalled transfer may last (60)
  WHEELCHECK_HTTP_REQUEST_TIMEOUT  seconds one request may last (120)
  WHEELCHECK_HTTP_WHEEL_TIMEOUT    seconds for one wheel or index page, retries included (300)
  WHEELCHECK_HTTP_RETRIES          retries of 429/5xx and dropped transfers (3)
  WHEELCHECK_HTTP_COALESCE_GAP     planned ranges closer than this many bytes share a request (65536)
  WHEELCHECK_HTTP_CONNECTIONS      parallel requests to one host (4)
  WHEELCHECK_HTTP_AUTHORIZATION    an Authorization header for private indexes
  NETRC                            credentials file (default ~/.netrc)
  WHEELCHECK_INDEX_MAX_LINKS       wheel links read from one index page (100000)
  WHEELCHECK_POLICY_PATH           folders searched for policy files by name
  NO_COLOR, FORCE_COLOR            colour of text on a terminal (non-empty values count)
  GITHUB_STEP_SUMMARY              with --format github: a Markdown summary is appended there

Configuration: the [tool.wheelcheck] table of the nearest pyproject.toml upward (policy, ignore,
select, strict, and any policy key: waive, rules, release, ...); flags override it; --no-config.

Exit codes: 0 every wheel passes, 1 findings (errors; warnings too with --strict), 2 usage or
configuration error (nothing is judged).)";

}  // namespace wc
