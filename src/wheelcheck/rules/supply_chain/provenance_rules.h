// PEP 740 attestations held against the file and the policy's publisher (WC911-WC913). The check
// pipeline reads and verifies the attestations (ProvenanceFacts); these rules judge the outcome.
#pragma once

#include <nlohmann/json.hpp>

#include "facts/wheel_facts.h"
#include "rules/rules.h"

namespace wc {

void provenance_rules(const WheelFacts& f, FindingSink& s);  // WC911-WC913

// The report's per-file summary: {verified, attestations, publisher, repository, workflow, ref,
// sha, log_index, integrated_time}; null when nothing was looked for.
nlohmann::json provenance_summary(const ProvenanceFacts& p);
// "provenance: verified, published by GitHub o/r (release.yml @ refs/tags/v1)" ("" when none).
std::string provenance_summary_line(const nlohmann::json& summary);

}  // namespace wc
