#include "rules/rules.h"

#include <algorithm>

#include "rules/supply_chain/provenance_rules.h"
#include "rules/supply_chain/sbom_rules.h"
#include "util/strings.h"

namespace wc {

void FindingSink::add(const std::string& rule, std::string message, std::string entry, std::optional<uint64_t> offset,
                      std::optional<Severity> natural) {
  const RuleInfo* info = find_rule(rule, catalogue_);
  Severity fallback = natural.value_or(info ? info->default_severity : Severity::error);
  Severity sev = policy_.severity_of(rule, fallback);
  if (sev == Severity::off) return;
  Finding f{rule, sev, std::move(message), std::move(entry), offset, {}};
  for (const auto& w : policy_.waivers) {
    if (w.rule != rule || (!w.path.empty() && !glob_match(w.path, f.entry))) continue;
    waived_.push_back({std::move(f), w.reason});
    return;
  }
  out_.push_back(std::move(f));
}

void FindingSink::add_waived(const std::string& rule, std::string message, std::string entry, std::string reason) {
  const RuleInfo* info = find_rule(rule, catalogue_);
  Severity sev = policy_.severity_of(rule, info ? info->default_severity : Severity::error);
  if (sev == Severity::off) return;
  waived_.push_back({Finding{rule, sev, std::move(message), std::move(entry), std::nullopt, {}}, std::move(reason)});
}

WheelVerdict check_wheel(const WheelFacts& f, const Policy& p, const InstallSet& given) {
  InstallSet set = given;  // the wheel always belongs to its own install set
  if (std::find(set.wheels.begin(), set.wheels.end(), &f) == set.wheels.end()) set.wheels.push_back(&f);
  FindingSink s(p);
  if (f.sdist) {  // a source distribution: its archive, its PKG-INFO, who published it
    for (const auto& u : f.unreadable) s.add("WC404", u.message);
    index_hash_rule(f, s);
    sdist_rules(f, s);
    provenance_rules(f, s);
    WheelVerdict v{s.take(), s.take_waived()};
    std::stable_sort(v.findings.begin(), v.findings.end(),
                     [](const Finding& a, const Finding& b) { return a.rule < b.rule; });
    return v;
  }
  if (!f.index_page) name_rules(f, s);
  archive_rules(f, s);
  // A wheel that cannot be read yields no trustworthy contents: only its name and the reason.
  if (f.readable()) {
    distinfo_rules(f, s);
    pypi_metadata_rules(f, set, s);
    record_rules(f, s);
    content_rules(f, s);
    binary_rules(f, set, s);
    symbol_rules(f, s);
    link_rules(f, set, s);
    torch_abi_rules(f, set, s);
    variant_rules(f, s);
    cuda_rules(f, s);
    sbom_rules(f, s);
  }
  // Who published the file does not depend on reading it.
  if (!f.index_page) provenance_rules(f, s);
  WheelVerdict v{s.take(), s.take_waived()};
  std::stable_sort(v.findings.begin(), v.findings.end(),
                   [](const Finding& a, const Finding& b) { return a.rule < b.rule; });
  return v;
}

bool has_errors(const std::vector<Finding>& fs) {
  return std::any_of(fs.begin(), fs.end(), [](const Finding& f) { return f.severity == Severity::error; });
}

}  // namespace wc
