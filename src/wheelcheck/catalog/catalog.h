// The wheelcheck rule catalogue: stable IDs, default severities, one-line explanations
// (`wheelcheck rules`). wheelsmoke's WS rules live in src/smoke/smoke_rules.h.
#pragma once

#include <span>
#include <string_view>

#include "catalog/finding.h"

namespace wc {

std::span<const RuleInfo> wheelcheck_rules();
// Looks `id` up in `catalogue` (default: wheelcheck's); nullptr when unknown.
const RuleInfo* find_rule(std::string_view id, std::span<const RuleInfo> catalogue = wheelcheck_rules());

// The long explanation of a rule (`wheelcheck rules WC502`): what it checks, why it matters, how to
// fix the wheel, and an illustrative finding. One row per catalogue rule (a test keeps them paired).
struct RuleHelp {
  const char* id;
  const char* checks;
  const char* why;
  const char* fix;
  const char* example;
};
std::span<const RuleHelp> wheelcheck_rule_help();
const RuleHelp* find_rule_help(std::string_view id);

}  // namespace wc
