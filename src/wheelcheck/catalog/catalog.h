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

}  // namespace wc
