// What both CLIs share: exit codes, the report options (--format/--output/--report FORMAT:FILE),
// CLI11 parsing that maps every parse error to exit 2, and the guard that turns a configuration
// error into exit 2 with a message. Linked by wheelcheck and wheelsmoke as `cli_support`.
#pragma once

#include <CLI/CLI.hpp>
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

void add_report_options(CLI::App* app, ReportOptions& o);
// The report targets the options name; throws CLI::ValidationError (exit 2) for a bad format.
std::vector<ReportTarget> report_targets(const ReportOptions& o);
// Writes every requested report; exit 0 when all items pass, 1 otherwise.
int emit_reports(const RunReport& report, const ReportOptions& o);

// Parses; returns an exit code when the program should stop (help and version: 0, errors: 2).
std::optional<int> parse(CLI::App& app, int argc, char** argv);

// Runs a verb; anything it throws is a usage or configuration error (exit 2), said on stderr.
int guarded(const char* tool, const std::function<int()>& verb);

}  // namespace wc::cli
