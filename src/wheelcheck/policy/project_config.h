// A project's own settings: the [tool.wheelcheck] table of its pyproject.toml, found from the
// current directory upward (the first pyproject.toml that has the table), as ruff and mypy find
// theirs. Command-line flags override it.
//
//   [tool.wheelcheck]
//   policy = "pytorch"              # a shipped name, or a file relative to pyproject.toml
//   ignore = ["WC107", "WC5*"]      # as --ignore
//   select = ["WC3*"]               # as --select
//   strict = true                   # as --strict
//   [[tool.wheelcheck.waive]]       # any policy key: waive, rules, limits, release, forbid, ...
//   rule = "WC503"
//   path = "mypkg/lib/libfoo.so"
//   reason = "loaded with dlopen when present"
//   [tool.wheelcheck.release]
//   project = "mypkg"
//   python = ["cp312-cp312", "cp313-cp313"]
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace wc {

struct ProjectConfig {
  std::string file;  // the pyproject.toml read (absolute)
  std::optional<std::string> policy;
  std::optional<std::vector<std::string>> ignore, select;
  std::optional<bool> strict;
  // The policy keys of the table (waive, rules, limits, release, ...), as a policy document without
  // `extends` (the caller names the base: `policy`, or the command line's); empty when there are none.
  nlohmann::json policy_overlay;
};

// The nearest pyproject.toml at or above `start` that has a [tool.wheelcheck] table; nullopt when
// none does. Throws std::runtime_error naming the file, line and key for malformed TOML or a value
// of the wrong type.
std::optional<ProjectConfig> find_project_config(const std::string& start);
// Reads one pyproject.toml (nullopt when it has no [tool.wheelcheck] table). Throws as above.
std::optional<ProjectConfig> read_project_config(const std::string& file);

}  // namespace wc
