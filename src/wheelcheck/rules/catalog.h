// The rule catalogue: stable IDs, default severities, one-line explanations (`wheelcheck rules`).
#pragma once

#include <string>
#include <vector>

#include "policy/policy.h"

namespace wc {

struct RuleInfo {
  const char* id;
  Severity default_severity;
  const char* title;
  const char* issue;  // the issue that introduced it (documentation)
};

const std::vector<RuleInfo>& rule_catalog();
const RuleInfo* find_rule(const std::string& id);

}  // namespace wc
