// Rules: pure functions of facts and policy. One file per family; check_wheel runs them all.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "facts/wheel_facts.h"
#include "policy/policy.h"

namespace wc {

struct Finding {
  std::string rule;
  Severity severity = Severity::error;
  std::string message;
  std::string entry;               // archive entry concerned, if any
  std::optional<uint64_t> offset;  // byte offset (in the archive or the binary), if known
};

// Applies the policy's severity to what rules report; drops findings whose rule is off.
class FindingSink {
 public:
  explicit FindingSink(const Policy& p) : policy_(p) {}
  void add(const std::string& rule, std::string message, std::string entry = "",
           std::optional<uint64_t> offset = std::nullopt, std::optional<Severity> natural = std::nullopt);
  std::vector<Finding> take() { return std::move(out_); }
  const Policy& policy() const { return policy_; }

 private:
  const Policy& policy_;
  std::vector<Finding> out_;
};

// Per-family entry points (rules/*_rules.cc).
void name_rules(const WheelFacts& f, FindingSink& s);      // WC101, WC105 (tags), WC106-WC108
void distinfo_rules(const WheelFacts& f, FindingSink& s);  // WC102-WC104, WC201-WC203
void record_rules(const WheelFacts& f, FindingSink& s);    // WC301-WC307
void archive_rules(const WheelFacts& f, FindingSink& s);   // WC401-WC405, WC701, WC706
void content_rules(const WheelFacts& f, FindingSink& s);   // WC105 (contents)

// Other wheels checked in the same run, for rules that resolve across an install set (WC503).
struct InstallSet {
  std::vector<const WheelFacts*> wheels;
};
void binary_rules(const WheelFacts& f, const InstallSet& set, FindingSink& s);  // WC501-WC510
void cuda_rules(const WheelFacts& f, FindingSink& s);                            // WC204, WC601-WC605

std::vector<Finding> check_wheel(const WheelFacts& f, const Policy& p, const InstallSet& set = {});
bool has_errors(const std::vector<Finding>& fs);

}  // namespace wc
