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
  bool json = false;                 // --json: --format json
  std::string color = "auto";        // --color auto|always|never
  // --ignore / --select RULE[,RULE...] (globs: WC5*) and --strict (warnings fail), as the peers have them.
  std::vector<std::string> ignore, select;
  bool strict = false;
};

void add_report_options(CLI::App* app, ReportOptions& o);
// --ignore, --select and --strict (wheelcheck's check and merge).
void add_filter_options(CLI::App* app, ReportOptions& o);
// The report with --ignore/--select applied and, with --strict, warnings raised to errors.
RunReport filtered(RunReport r, const ReportOptions& o);
// The report targets the options name; throws CLI::ValidationError (exit 2) for a bad format or a
// report file that cannot be written (said before any wheel is read). Also applies --color.
std::vector<ReportTarget> report_targets(const ReportOptions& o);
// Writes every requested report; exit 0 when all items pass, 1 otherwise.
int emit_reports(const RunReport& report, const ReportOptions& o);

// Parses; returns an exit code when the program should stop (help and version: 0, errors: 2).
std::optional<int> parse(CLI::App& app, int argc, char** argv);

// Runs a verb; anything it throws is a usage or configuration error (exit 2), said on stderr.
int guarded(const char* tool, const std::function<int()>& verb);

}  // namespace wc::cli
