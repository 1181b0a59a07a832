// What both CLIs share: exit codes, report options (--format/--output/--report FORMAT:FILE), writing
// the reports (plus $GITHUB_STEP_SUMMARY), and CLI11 parsing that maps every parse error to exit 2.
#pragma once

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "report/report.h"

namespace wc::cli {

constexpr int kExitPass = 0, kExitFail = 1, kExitUsage = 2;

struct ReportOptions {
  std::string format = "text", output;
  std::vector<std::string> reports;  // FORMAT:FILE
};

inline void add_report_options(CLI::App* app, ReportOptions& o) {
  app->add_option("-f,--format", o.format, "text, json, junit, github or sarif")->capture_default_str();
  app->add_option("-o,--output", o.output, "Write the --format report here instead of stdout");
  app->add_option("--report", o.reports, "Another report as FORMAT:FILE (repeatable)");
}

inline std::vector<std::pair<Format, std::string>> report_specs(const ReportOptions& o) {
  std::vector<std::pair<Format, std::string>> specs;
  Format f;
  if (!parse_format(o.format, f)) throw CLI::ValidationError("--format", "unknown format '" + o.format + "' (text, json, junit, github, sarif)");
  specs.emplace_back(f, o.output);
  for (const auto& r : o.reports) {
    auto colon = r.find(':');
    if (colon == std::string::npos || colon + 1 == r.size() || !parse_format(r.substr(0, colon), f))
      throw CLI::ValidationError("--report", "expected FORMAT:FILE with FORMAT one of text, json, junit, github, sarif; got '" + r + "'");
    specs.emplace_back(f, r.substr(colon + 1));
  }
  return specs;
}

inline bool color_wanted(const std::string& path) {
  const char* term = std::getenv("TERM");
  return path.empty() && ::isatty(STDOUT_FILENO) && !std::getenv("NO_COLOR") && !(term && std::string(term) == "dumb");
}

// Writes every requested report; exit 0 when all items pass, 1 otherwise.
inline int emit_reports(const RunReport& report, const ReportOptions& o) {
  auto specs = report_specs(o);
  for (const auto& [fmt, path] : specs) {
    TextOptions topt{color_wanted(path), true};
    if (path.empty()) {
      write_report(report, fmt, std::cout, topt);
      continue;
    }
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("cannot write report " + path);
    write_report(report, fmt, out, topt);
  }
  const char* summary = std::getenv("GITHUB_STEP_SUMMARY");
  bool github = std::any_of(specs.begin(), specs.end(), [](const auto& s) { return s.first == Format::github; });
  if (summary && *summary && github) std::ofstream(summary, std::ios::app) << github_summary_markdown(report) << "\n";
  return report.all_pass() ? kExitPass : kExitFail;
}

// Parses; returns an exit code when the program should stop (help and version: 0, errors: 2).
inline std::optional<int> parse(CLI::App& app, int argc, char** argv) {
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

// Runs a verb; anything it throws is a usage or configuration error (exit 2), said on stderr.
template <typename F>
int guarded(const char* tool, F&& verb) {
  try {
    return verb();
  } catch (const std::exception& e) {
    std::cerr << tool << ": " << e.what() << "\n";
    return kExitUsage;
  }
}

}  // namespace wc::cli
