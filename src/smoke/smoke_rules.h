// wheelsmoke's rules (WS): artifacts on declared or real hardware, and the kernel suites. Same
// shape as wheelcheck's catalogue, so the reporters and FindingSink serve both tools.
#pragma once

#include <span>

#include "catalog/finding.h"

namespace wc::smoke {

std::span<const RuleInfo> smoke_rules();

}  // namespace wc::smoke
