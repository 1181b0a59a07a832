#include "cli_support/cli_support.h"

#include <iostream>

namespace wc::cli {

void add_report_options(CLI::App* app, ReportOptions& o) {
  app->add_option("-f,--format", o.format, "text, json, junit, github or sarif")->capture_default_str();
  app->add_option("-o,--output", o.output, "Write the --format report here instead of stdout");
  // One value per --report (repeat the flag for more): the positional targets after it stay targets.
  app->add_option("--report", o.reports, "Another report as FORMAT:FILE (repeatable)")->allow_extra_args(false);
}

std::vector<ReportTarget> report_targets(const ReportOptions& o) {
  std::vector<ReportTarget> targets;
  Format f;
  if (!parse_format(o.format, f))
    throw CLI::ValidationError("--format", "unknown format '" + o.format + "' (text, json, junit, github, sarif)");
  targets.push_back({f, o.output});
  for (const auto& r : o.reports) {
    auto colon = r.find(':');
    if (colon == std::string::npos || colon + 1 == r.size() || !parse_format(r.substr(0, colon), f))
      throw CLI::ValidationError(
          "--report", "expected FORMAT:FILE with FORMAT one of text, json, junit, github, sarif; got '" + r + "'");
    targets.push_back({f, r.substr(colon + 1)});
  }
  return targets;
}

int emit_reports(const RunReport& report, const ReportOptions& o) {
  write_reports(report, report_targets(o));
  return report.all_pass() ? kExitPass : kExitFail;
}

std::optional<int> parse(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }
  return std::nullopt;
}

int guarded(const char* tool, const std::function<int()>& verb) {
  try {
    return verb();
  } catch (const std::exception& e) {
    std::cerr << tool << ": " << e.what() << "\n";
    return kExitUsage;
  }
}

}  // namespace wc::cli
