#include "rules/rules.h"

#include <algorithm>

#include "rules/catalog.h"

namespace wc {

void FindingSink::add(const std::string& rule, std::string message, std::string entry, std::optional<uint64_t> offset,
                      std::optional<Severity> natural) {
  const RuleInfo* info = find_rule(rule);
  Severity fallback = natural.value_or(info ? info->default_severity : Severity::error);
  Severity sev = policy_.severity_of(rule, fallback);
  if (sev == Severity::off) return;
  out_.push_back({rule, sev, std::move(message), std::move(entry), offset});
}

std::vector<Finding> check_wheel(const WheelFacts& f, const Policy& p, const InstallSet& set) {
  FindingSink s(p);
  name_rules(f, s);
  archive_rules(f, s);
  // A wheel that cannot be read yields no trustworthy contents: only its name and the reason.
  if (f.readable()) {
    distinfo_rules(f, s);
    record_rules(f, s);
    content_rules(f, s);
    binary_rules(f, set, s);
    cuda_rules(f, s);
  }
  auto out = s.take();
  std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) { return a.rule < b.rule; });
  return out;
}

bool has_errors(const std::vector<Finding>& fs) {
  return std::any_of(fs.begin(), fs.end(), [](const Finding& f) { return f.severity == Severity::error; });
}

}  // namespace wc
