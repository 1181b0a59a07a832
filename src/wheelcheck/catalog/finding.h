// What every rule produces, and how severe it is. A leaf: nothing of the project below it, so the
// policy loader, the rules, the reporters and wheelsmoke can all share it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wc {

enum class Severity { off, warning, error };
const char* severity_name(Severity s);
std::optional<Severity> parse_severity(std::string_view s);

struct RuleInfo {
  const char* id;
  Severity default_severity;
  const char* title;
  const char* area;  // which part of the tool raises it (documentation)
};

struct Finding {
  std::string rule;
  Severity severity = Severity::error;
  std::string message;
  std::string entry;               // archive entry concerned, if any
  std::optional<uint64_t> offset;  // byte offset (in the archive or the binary), if known
  // The same finding at other entries, each whole (fold_repeats: one finding a reader reads, every
  // location kept for JSON and SARIF).
  std::vector<Finding> repeats;
};

}  // namespace wc
