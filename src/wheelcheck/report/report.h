// Reporters: text (people), json (tools, schema wheelcheck-report/1), junit (CI test views),
// github (workflow annotations + step summary). One RunReport feeds them all, for both tools.
#pragma once

#include <ostream>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/stored_json.h"
#include "rules/rules.h"

namespace wc {

struct ItemResult {
  std::string path;  // wheel path/URL, or suite/case name for wheelsmoke
  std::string kind;  // wheelcheck: "sdist" for a source distribution, "" for a wheel
  std::vector<Finding> findings;
  std::vector<WaivedFinding> waived;  // covered by a policy waiver: listed, never failing
  nlohmann::json facts;               // optional extra data
  // wheelcheck: the wheel's release-set summary (merge and --baseline read it); a run of several
  // wheels parks it in a scratch file until the report is written.
  StoredJson release;
  nlohmann::json sbom;        // wheelcheck: PEP 770 coverage {documents, components, bundled, declared, undeclared}
  nlohmann::json provenance;  // wheelcheck: PEP 740 {verified, attestations, publisher, repository, workflow, ...}
  uint64_t size = 0, bytes_read = 0;       // wheelcheck: the wheel's size, and the bytes read to check it
  uint64_t requests = 0, connections = 0;  // wheelcheck, remote wheels: HTTP requests and new connections
  bool skipped = false;                    // wheelsmoke: nothing ran (e.g. no GPU)
  std::string skip_reason;
  std::vector<std::string> notes;  // what a reader should know beside the findings ("12 libraries loaded, ...")
  bool pass() const { return !has_errors(findings); }
};

// Findings about the release set as a whole (WC702-WC705, WC707).
struct SetSection {
  std::vector<Finding> findings;
  std::vector<WaivedFinding> waived;
  size_t members = 0;           // wheels of the release
  std::string baseline;         // the --baseline report, if any
  size_t baseline_matched = 0;  // members found in it
  bool pass() const { return !has_errors(findings); }
};

// Which shard of a sharded run this report is (check --shard I/N).
struct ShardInfo {
  unsigned index = 0, count = 0;  // 1-based index
  size_t targets = 0;             // targets before the partition
  std::string digest;             // of the whole target list
};

// wheelsmoke compat: the wheel an installer picks among a release's variant wheels (PEP 825).
struct VariantChoice {
  std::string project, version, tags;
  std::string selected_wheel;  // "" when no wheel of the group is compatible
  std::vector<std::string> order, incompatible;
  std::optional<bool> selected_runs;  // whether the selected wheel's GPU code runs on the target
};

struct RunReport {
  std::string tool = "wheelcheck";
  std::string version;
  std::string policy;
  std::string policy_source;         // what `merge` reloads the policy from (a shipped name or a path)
  std::string items_key = "wheels";  // "suites" / "artifacts" for wheelsmoke
  std::string item_label;            // what the text summary counts ("cases"); items_key if empty
  std::string depth;                 // wheelcheck: "full" or "metadata" (what was read); "" elsewhere
  std::optional<SetSection> set;     // when the policy declares a release (or a baseline was given)
  std::optional<ShardInfo> shard;
  std::string set_note;  // why set rules did not run (a shard holds part of the set)
  // --resolve-deps: the dependency wheels read for install sets (not judged), and what could not be found.
  std::vector<std::string> dependencies, dependency_notes;
  // What expanding the targets left out (index pages read only up to the link cap).
  std::vector<std::string> target_notes;
  std::vector<VariantChoice> variant_choices;
  std::vector<ItemResult> items;
  std::span<const RuleInfo> rules = wheelcheck_rules();  // the catalogue the findings come from (SARIF)
  bool all_pass() const;
};

enum class Format { text, json, junit, github, sarif };
bool parse_format(const std::string& s, Format& out);

struct TextOptions {
  bool color = false;
  bool show_passing = true;
};

// Repeats folded into one finding: the same rule and severity, and the same message once the entry
// it concerns (its path, or its file name) is taken out of it (DALI's 20 WC504 warnings for one
// dead RUNPATH directory, one per binary, read as one finding naming 20 files). The first keeps
// its place; the others go to its `repeats`, whole. Findings already folded, or without an entry,
// are left as they are.
void fold_repeats(std::vector<Finding>& fs);
void fold_repeats(RunReport& r);  // every item's findings, and the release set's

void write_text(const RunReport& r, std::ostream& out, const TextOptions& opt);
nlohmann::json report_to_json(const RunReport& r);
// The same text as report_to_json(r) written with an indent of 2, one item at a time: no whole
// tree of a 100,000-wheel run is ever held. A parked record that cannot be read back (the scratch
// file's disk failing) throws std::runtime_error with the items before it already written.
void write_json(const RunReport& r, std::ostream& out);
void write_junit(const RunReport& r, std::ostream& out);
void write_github(const RunReport& r, std::ostream& out);
// SARIF 2.1.0 (GitHub code scanning, IDEs): one run, rules from the catalogue, one result per
// finding and location (a folded finding's repeats are results of their own).
void write_sarif(const RunReport& r, std::ostream& out);
// Markdown table for $GITHUB_STEP_SUMMARY.
std::string github_summary_markdown(const RunReport& r);
void write_report(const RunReport& r, Format f, std::ostream& out, const TextOptions& opt);

// Where one report goes: a file, or stdout when `path` is empty.
struct ReportTarget {
  Format format = Format::text;
  std::string path;
};
enum class ColorMode { automatic, always, never };
// Where colour comes from for text on stdout: --color, then NO_COLOR (when non-empty) and
// FORCE_COLOR (when non-empty), then whether stdout is a terminal (TERM=dumb is not).
void set_color_mode(ColorMode m);
// Writes every target (text is coloured only on a terminal without NO_COLOR), and appends the
// Markdown summary to $GITHUB_STEP_SUMMARY when a github report is among them. Throws
// std::runtime_error naming a file that cannot be written.
void write_reports(const RunReport& r, const std::vector<ReportTarget>& targets);

std::string xml_escape(const std::string& s);

}  // namespace wc
