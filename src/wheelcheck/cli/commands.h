// wheelcheck's commands, one file each (src/wheelcheck/cli/*_command.cc); main.cc declares them and
// their flags, and each command's help footer lives here beside it.
#pragma once

#include <string>
#include <vector>

#include "cli_support/cli_support.h"
#include "policy/policy.h"

namespace wc {

struct CheckArgs {
  std::string version;  // the report's (main.cc alone sees the generated version header)
  std::vector<std::string> targets;
  std::string policy = "default";
  cli::ReportOptions out;
  unsigned jobs = 0;
  bool quiet = false, facts = false, no_binaries = false;
  std::string match;
  std::string depth = "full";
  std::string baseline, shard, resolve_deps;
  std::string trusted_root, provenance_dir;  // PEP 740
  bool policy_given = false;                 // -p on the command line (it overrides the project's policy)
  std::string config;                        // --config FILE: this pyproject.toml instead of the one found
  bool no_config = false;                    // --no-config: no pyproject.toml
};
int run_check(CheckArgs& a);
extern const char* const kCheckFooter;

struct InspectArgs {
  std::vector<std::string> targets;
  std::string format = "text", output, policy = "default", depth = "full";
};
int run_inspect(const InspectArgs& a);
extern const char* const kInspectFooter;

// Combines the JSON reports of shards (one nightly gate split over machines) into one verdict.
struct MergeArgs {
  std::string version;
  std::vector<std::string> files;
  cli::ReportOptions out;
  std::string policy, baseline;
  bool quiet = false;
};
int run_merge(const MergeArgs& a);
extern const char* const kMergeFooter;

struct DiffArgs {
  std::string old_side, new_side, format = "text", output, policy = "default", match;
};
int run_diff(const DiffArgs& a);
extern const char* const kDiffFooter;

// `rules` lists the catalogue (text, json or markdown); `rules WC502 [...]` explains those rules
// (unknown IDs: exit 2 with the nearest known one).
int run_rules(const std::string& format, const std::vector<std::string>& ids);

struct PolicyArgs {
  std::string verb;                // validate, show, list, schema
  std::vector<std::string> files;  // validate
  std::string spec = "default";    // show
};
int run_policy(const PolicyArgs& a);

}  // namespace wc
