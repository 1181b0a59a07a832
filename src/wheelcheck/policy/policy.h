// Policies: which rules apply at which severity, limits, forbidden paths, platform and CUDA
// expectations. Loaded from JSON (shipped ones are embedded in the binary), merged along `extends`.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace wc {

enum class Severity { off, warning, error };
const char* severity_name(Severity s);
std::optional<Severity> parse_severity(std::string_view s);

struct Limits {
  double max_compression_ratio = 100.0;        // per entry, uncompressed / compressed
  uint64_t ratio_min_entry_bytes = 1u << 20;    // ratio applies to entries at least this large
  uint64_t max_total_uncompressed_bytes = 16ull << 30;
  uint64_t max_entries = 100000;
  uint64_t max_wheel_bytes = 0;                 // 0: no limit (WC701)
  uint64_t max_path_length = 1024;
  uint64_t max_metadata_bytes = 16u << 20;      // WHEEL, METADATA, RECORD read into memory
};

struct ForbidRule {
  std::string glob;
  Severity severity = Severity::error;
  std::string reason;
};

struct PolicyIssue {
  std::string pointer;  // JSON pointer into the policy document
  int line = 0;         // 1-based, 0 when unknown
  std::string message;
};

class PolicyError : public std::runtime_error {
 public:
  PolicyError(std::string file, std::vector<PolicyIssue> issues);
  const std::vector<PolicyIssue>& issues() const { return issues_; }
  const std::string& file() const { return file_; }

 private:
  std::string file_;
  std::vector<PolicyIssue> issues_;
};

struct Policy {
  std::string name = "default";
  std::string description;
  std::vector<std::string> sources;  // the files / embedded names merged, base first
  std::map<std::string, Severity> severity;  // overrides of the catalogue's defaults
  Limits limits;
  std::vector<ForbidRule> forbid;
  nlohmann::json merged;  // the whole resolved document (for sections other modules read)

  Severity severity_of(const std::string& rule, Severity fallback) const;
};

// `spec` is a file path or the name of a shipped policy. Throws PolicyError.
Policy load_policy(const std::string& spec);
// Checks one document (no extends resolution beyond checking the names exist).
std::vector<PolicyIssue> validate_policy_text(const std::string& text, const std::string& file);
std::vector<std::string> shipped_policy_names();
const std::string* shipped_policy_text(const std::string& name);
const std::string& policy_schema_text();

}  // namespace wc
