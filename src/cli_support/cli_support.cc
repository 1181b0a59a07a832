#include "cli_support/cli_support.h"

#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "util/strings.h"

namespace wc::cli {

void add_report_options(CLI::App* app, ReportOptions& o) {
  app->add_option("-f,--format", o.format, "text, json, junit, github or sarif")->capture_default_str();
  app->add_flag("--json", o.json, "Shorthand for --format json");
  app->add_option("-o,--output", o.output, "Write the --format report here instead of stdout");
  // One value per --report (repeat the flag for more): the positional targets after it stay targets.
  app->add_option("--report", o.reports, "Another report as FORMAT:FILE (repeatable)")->allow_extra_args(false);
  app->add_option("--color", o.color, "Colour text on stdout: auto (a terminal, unless NO_COLOR), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
}

void add_filter_options(CLI::App* app, ReportOptions& o) {
  app->add_option("--ignore", o.ignore, "Leave out findings of these rules (RULE[,RULE...], globs: WC5*)")
      ->delimiter(',');
  app->add_option("--select", o.select, "Report only findings of these rules (RULE[,RULE...], globs)")->delimiter(',');
  app->add_flag("--strict", o.strict, "Warnings fail too (exit 1)");
}

namespace {

void filter(std::vector<Finding>& fs, const ReportOptions& o) {
  std::erase_if(fs, [&](const Finding& f) {
    return glob_any(o.ignore, f.rule) || (!o.select.empty() && !glob_any(o.select, f.rule));
  });
  if (o.strict)
    for (auto& f : fs) {
      if (f.severity == Severity::warning) f.severity = Severity::error;
      for (auto& r : f.repeats)  // a folded finding read back by merge
        if (r.severity == Severity::warning) r.severity = Severity::error;
    }
}

// A report file must be writable before anything is read: an existing file writable, or a new one
// in a directory that exists and is writable.
void require_writable(const std::string& path, const char* flag) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path p(path);
  if (fs::exists(p, ec)) {
    if (fs::is_directory(p, ec))
      throw CLI::ValidationError(flag, "cannot write the report to '" + path + "': it is a directory");
    if (::access(path.c_str(), W_OK) != 0)
      throw CLI::ValidationError(flag, "cannot write the report to '" + path + "': not writable");
    return;
  }
  fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  if (!fs::is_directory(dir, ec))
    throw CLI::ValidationError(flag, "cannot write the report to '" + path + "': no directory '" + dir.string() + "'");
  if (::access(dir.c_str(), W_OK) != 0)
    throw CLI::ValidationError(
        flag, "cannot write the report to '" + path + "': directory '" + dir.string() + "' is not writable");
}

}  // namespace

RunReport filtered(RunReport r, const ReportOptions& o) {
  for (auto& i : r.items) filter(i.findings, o);
  if (r.set) filter(r.set->findings, o);
  return r;
}

std::vector<ReportTarget> report_targets(const ReportOptions& o) {
  std::vector<ReportTarget> targets;
  Format f;
  const std::string format = o.json ? "json" : o.format;
  if (!parse_format(format, f))
    throw CLI::ValidationError("--format", "unknown format '" + format + "' (text, json, junit, github, sarif)");
  set_color_mode(o.color == "always"  ? ColorMode::always
                 : o.color == "never" ? ColorMode::never
                                      : ColorMode::automatic);
  if (!o.output.empty()) require_writable(o.output, "--output");
  targets.push_back({f, o.output});
  for (const auto& r : o.reports) {
    auto colon = r.find(':');
    if (colon == std::string::npos || colon + 1 == r.size() || !parse_format(r.substr(0, colon), f))
      throw CLI::ValidationError(
          "--report", "expected FORMAT:FILE with FORMAT one of text, json, junit, github, sarif; got '" + r + "'");
    require_writable(r.substr(colon + 1), "--report");
    targets.push_back({f, r.substr(colon + 1)});
  }
  return targets;
}

int emit_reports(const RunReport& report, const ReportOptions& o) {
  auto targets = report_targets(o);
  RunReport shown = o.ignore.empty() && o.select.empty() && !o.strict ? report : filtered(report, o);
  fold_repeats(shown);  // what a person reads: repeats as one finding naming their files
  write_reports(shown, targets);
  return shown.all_pass() ? kExitPass : kExitFail;
}

namespace {

// " (did you mean '--json'?)" for the first unexpected word, among the options of the subcommand
// it followed (or the subcommands, for a word that is not an option); "" when nothing is close.
std::string suggestion(CLI::App& app, const CLI::ParseError& e) {
  if (!dynamic_cast<const CLI::ExtrasError*>(&e) && !dynamic_cast<const CLI::RequiredError*>(&e)) return "";
  CLI::App* at = &app;
  for (CLI::App* sub = at; sub;) {
    auto parsed = sub->get_subcommands();
    sub = parsed.empty() ? nullptr : parsed.back();
    if (sub) at = sub;
  }
  std::vector<std::string> extras = at->remaining(true);
  if (extras.empty()) extras = app.remaining(true);
  if (extras.empty()) return "";
  std::string word = extras.front().substr(0, extras.front().find('='));
  std::vector<std::string> known;
  if (word.rfind("-", 0) == 0) {
    for (const CLI::Option* o : at->get_options()) {
      for (const auto& l : o->get_lnames()) known.push_back("--" + l);
      for (const auto& s : o->get_snames()) known.push_back("-" + s);
    }
  } else {
    for (const CLI::App* s : app.get_subcommands({})) known.push_back(s->get_name());
  }
  auto ordered = nearest_first(word, known);
  if (ordered.empty() || edit_distance(word, ordered.front()) > std::max<size_t>(2, word.size() / 3)) return "";
  return " (did you mean '" + ordered.front() + "'?)";
}

}  // namespace

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
    // Every message starts with the tool's name; an unknown word gets the nearest known one.
    std::string tool = argc > 0 ? std::filesystem::path(argv[0]).filename().string() : "wheelcheck";
    std::cerr << tool << ": " << e.what() << suggestion(app, e) << "\n"
              << "Run with --help for more information.\n";
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
