#include "rules/rules.h"

#include <algorithm>
#include <deque>
#include <memory>
#include <optional>
#include <system_error>
#include <vector>

#include "rules/loader/resolution.h"
#include "rules/supply_chain/provenance_rules.h"
#include "rules/supply_chain/sbom_rules.h"
#include "util/budget.h"
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

namespace {

void sort_by_rule(std::vector<Finding>& fs) {
  std::stable_sort(fs.begin(), fs.end(), [](const Finding& a, const Finding& b) { return a.rule < b.rule; });
}

}  // namespace

AloneVerdict judge_alone(const WheelFacts& f, const Policy& p, bool two_threads) {
  AloneVerdict v;
  if (f.sdist) {  // a source distribution: its archive, its PKG-INFO, who published it
    FindingSink s(p);
    for (const auto& u : f.unreadable) s.add("WC404", u.message);
    index_hash_rule(f, s);
    sdist_rules(f, s);
    provenance_rules(f, s);
    v.findings = s.take();
    v.waived = s.take_waived();
    return v;
  }
  // The rule families in report order, each into a sink of its own; `mark` k: the install-set
  // rules' findings go after this family's (AloneVerdict::at). With two threads, the RECORD and
  // content families run on the other one: with the archive family on this one, the two halves
  // of a 100,000-entry wheel's rules take about as long (callgrind: 409 M and 390 M instructions).
  using Rule = void (*)(const WheelFacts&, FindingSink&);
  struct Family {
    Rule rule;
    bool aside = false;
    int mark = -1;
  };
  std::vector<Family> families;
  if (!f.index_page) families.push_back({name_rules});
  families.push_back({archive_rules});
  // A wheel that cannot be read yields no trustworthy contents: only its name and the reason.
  if (f.readable()) {
    v.in_set = true;
    families.push_back({distinfo_rules, false, 0});  // then pypi_metadata_rules
    families.push_back({record_rules, true});
    families.push_back({content_rules, true, 1});  // then binary_rules
    families.push_back({symbol_rules, false, 2});  // then link_rules, torch_abi_rules
    families.push_back({variant_rules});
    families.push_back({cuda_rules});
    families.push_back({sbom_rules});
  }
  // Who published the file does not depend on reading it.
  if (!f.index_page) families.push_back({provenance_rules});
  std::deque<FindingSink> sinks;
  for (size_t k = 0; k < families.size(); ++k) sinks.emplace_back(p);
  auto run = [&](bool aside) {
    for (size_t k = 0; k < families.size(); ++k)
      if (families[k].aside == aside) families[k].rule(f, sinks[k]);
  };
  std::optional<GuardedThread> other;
  if (two_threads) try {
      other.emplace([&] { run(true); });
    } catch (const std::system_error&) {  // a thread the system refuses: all on this one
      other.reset();
    }
  if (!other)
    for (auto& family : families) family.aside = false;  // all on this one
  run(false);                                            // a throw here joins `other` first
  if (other) {
    other->join();
    if (other->error()) std::rethrow_exception(other->error());
  }
  for (size_t k = 0; k < families.size(); ++k) {
    for (auto& x : sinks[k].take()) v.findings.push_back(std::move(x));
    for (auto& x : sinks[k].take_waived()) v.waived.push_back(std::move(x));
    if (families[k].mark >= 0)
      v.at[families[k].mark] = v.findings.size(), v.waived_at[families[k].mark] = v.waived.size();
  }
  return v;
}

WheelVerdict judge_in_set(AloneVerdict alone, const WheelFacts& f, const Policy& p, const InstallSet& given) {
  WheelVerdict v;
  if (!alone.in_set) {
    v = {std::move(alone.findings), std::move(alone.waived)};
  } else {
    InstallSet set = given;  // the wheel always belongs to its own install set
    if (std::find(set.wheels.begin(), set.wheels.end(), &f) == set.wheels.end()) set.wheels.push_back(&f);
    set.preloaded = std::make_shared<PreloadedLibraries>();  // this set's own: the wheels are final
    std::array<FindingSink, 3> sinks{FindingSink(p), FindingSink(p), FindingSink(p)};
    pypi_metadata_rules(f, set, sinks[0]);
    binary_rules(f, set, sinks[1]);
    link_rules(f, set, sinks[2]);
    torch_abi_rules(f, set, sinks[2]);
    size_t from = 0, waived_from = 0;
    for (size_t k = 0; k < sinks.size(); ++k) {
      for (; from < alone.at[k]; ++from) v.findings.push_back(std::move(alone.findings[from]));
      for (; waived_from < alone.waived_at[k]; ++waived_from) v.waived.push_back(std::move(alone.waived[waived_from]));
      for (auto& x : sinks[k].take()) v.findings.push_back(std::move(x));
      for (auto& x : sinks[k].take_waived()) v.waived.push_back(std::move(x));
    }
    for (; from < alone.findings.size(); ++from) v.findings.push_back(std::move(alone.findings[from]));
    for (; waived_from < alone.waived.size(); ++waived_from) v.waived.push_back(std::move(alone.waived[waived_from]));
  }
  sort_by_rule(v.findings);
  return v;
}

WheelVerdict check_wheel(const WheelFacts& f, const Policy& p, const InstallSet& set) {
  return judge_in_set(judge_alone(f, p), f, p, set);
}

bool has_errors(const std::vector<Finding>& fs) {
  return std::any_of(fs.begin(), fs.end(), [](const Finding& f) { return f.severity == Severity::error; });
}

}  // namespace wc
