// Rules: pure functions of facts and policy. One file per family; check_wheel runs them all.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include <span>

#include "catalog/catalog.h"
#include "facts/wheel_facts.h"
#include "policy/policy.h"
#include "rules/loader/install_set.h"

namespace wc {

// A finding the policy waived, with the waiver's reason (reported, never failing).
struct WaivedFinding {
  Finding finding;
  std::string reason;
};

// Applies the policy's severity to what rules report; drops findings whose rule is off and sets
// aside those a waiver covers. `catalogue` gives the default severities (wheelsmoke passes its own).
class FindingSink {
 public:
  explicit FindingSink(const Policy& p, std::span<const RuleInfo> catalogue = wheelcheck_rules())
      : policy_(p), catalogue_(catalogue) {}
  void add(const std::string& rule, std::string message, std::string entry = "",
           std::optional<uint64_t> offset = std::nullopt, std::optional<Severity> natural = std::nullopt);
  // A finding a rule-specific waiver (with its reason) covers: reported, never failing.
  void add_waived(const std::string& rule, std::string message, std::string entry, std::string reason);
  std::vector<Finding> take() { return std::move(out_); }
  size_t count() const { return out_.size(); }  // findings so far (waived ones apart)
  size_t waived_count() const { return waived_.size(); }
  std::vector<WaivedFinding> take_waived() { return std::move(waived_); }
  const Policy& policy() const { return policy_; }

 private:
  const Policy& policy_;
  std::span<const RuleInfo> catalogue_;
  std::vector<Finding> out_;
  std::vector<WaivedFinding> waived_;
};

// Per-family entry points (rules/*_rules.cc).
void name_rules(const WheelFacts& f, FindingSink& s);       // WC101, WC105 (tags), WC106-WC108
void distinfo_rules(const WheelFacts& f, FindingSink& s);   // WC102-WC104, WC201-WC203
void record_rules(const WheelFacts& f, FindingSink& s);     // WC301-WC307
void archive_rules(const WheelFacts& f, FindingSink& s);    // WC401-WC405, WC407, WC701, WC706
void index_hash_rule(const WheelFacts& f, FindingSink& s);  // WC407 (wheels and sdists)
void content_rules(const WheelFacts& f, FindingSink& s);    // WC105 (contents), WC211-WC218 (layout)

void binary_rules(const WheelFacts& f, const InstallSet& set, FindingSink& s);         // WC501-WC510
void pypi_metadata_rules(const WheelFacts& f, const InstallSet& set, FindingSink& s);  // WC205
void cuda_rules(const WheelFacts& f, FindingSink& s);                                  // WC204, WC601-WC605
void symbol_rules(const WheelFacts& f, FindingSink& s);                                // WC511-WC513
void link_rules(const WheelFacts& f, const InstallSet& set, FindingSink& s);           // WC514, WC516, WC517
void torch_abi_rules(const WheelFacts& f, const InstallSet& set, FindingSink& s);      // WC515
void sdist_rules(const WheelFacts& f, FindingSink& s);  // WC721, WC722, WC401-WC404 of a source distribution
// WC720: an sdist's static PKG-INFO fields (PEP 643) against the wheels of its version in `all`.
void sdist_agreement(const WheelFacts& sdist, const std::vector<WheelFacts>& all, FindingSink& s);
void variant_rules(const WheelFacts& f, FindingSink& s);  // WC801-WC805 (PEP 825)

struct WheelVerdict {
  std::vector<Finding> findings;
  std::vector<WaivedFinding> waived;
};
WheelVerdict check_wheel(const WheelFacts& f, const Policy& p, const InstallSet& set = {});

// check_wheel in two steps, so that a run need not hold every wheel's facts whole until its last
// wheel is read: the rules that read the wheel alone (judge_alone, as soon as it is read), then
// those that read its install set (judge_in_set: WC205, WC501-WC510, WC514-WC517, once every
// wheel of the run is read), which read no more of any wheel's facts than keep_for_install_sets()
// leaves. Together they give check_wheel's verdict, findings in its order.
struct AloneVerdict {
  std::vector<Finding> findings;  // in the order the rules ran
  std::vector<WaivedFinding> waived;
  // The install-set rules' findings go after the first at[k] of these (waived_at[k] waived ones):
  // WC205's after the dist-info rules', the binaries' after the content rules', the links' after
  // the symbol rules'.
  std::array<size_t, 3> at{}, waived_at{};
  bool in_set = false;  // the install-set rules run: a readable wheel (not an sdist)
};
// With `two_threads`, the RECORD and content rules (WC301-WC307, WC211-WC218), which walk every
// entry, run on a second thread beside the others: the same verdict, sooner, for a wheel of many
// entries.
AloneVerdict judge_alone(const WheelFacts& f, const Policy& p, bool two_threads = false);
WheelVerdict judge_in_set(AloneVerdict alone, const WheelFacts& f, const Policy& p, const InstallSet& set);

// The Requires-Dist dependencies of `f` that install libraries by the policy's providers table
// (installed on f's platform, by default or through one of f's extras): what --resolve-deps fetches.
struct DeclaredProvider {
  std::string name;         // canonical name of the dependency
  std::string requirement;  // the Requires-Dist line
  std::string specifier;    // its version specifier (">=13.4"), "" when none
};
std::vector<DeclaredProvider> declared_providers(const WheelFacts& f, const Policy& p);
bool has_errors(const std::vector<Finding>& fs);
// Why WC401 refuses an entry name (traversal, an absolute path, a control character, a name over
// `max_len` bytes ...), or "" for a safe one. Rules about where entries land (layout, contents)
// skip refused entries: a finding about a path no installer may write adds nothing.
std::string unsafe_path_reason(const std::string& name, uint64_t max_len);

// The dotted names a list of PEP 794 Import-Name (or Import-Namespace) values declares, without
// "; private"; a lone empty value declares nothing. Invalid values are left out (and described in
// `bad` when given).
std::vector<std::string> declared_import_names(const std::vector<std::string>& values,
                                               std::vector<std::string>* bad = nullptr);

}  // namespace wc
