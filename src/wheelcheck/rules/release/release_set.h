// Rules over a release set rather than one wheel (WC702-WC705, WC707): the matrix the policy
// expects, metadata that must agree across the wheels of one release, CUDA variants that must be
// what their labels say, and sizes against the previous night's report.
//
// Each wheel is summarised into a SetMember, which every JSON report carries (`release` in each
// wheel's item), so `merge` can run these rules over shards and `--baseline` can compare with a
// report written on another day without the wheels at hand.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "catalog/finding.h"
#include "facts/wheel_facts.h"
#include "policy/policy.h"
#include "rules/release/release_facts.h"
#include "rules/rules.h"

namespace wc {

struct SetMember {
  std::string path, filename;
  std::string project;         // canonical name
  std::string version;         // as in the file name
  std::string public_version;  // without the local part
  std::string variant;         // the local version label ("cu128", "cpu", ...), "" for none
  std::vector<std::string> python_tags, abi_tags, platform_tags;
  uint64_t size = 0;
  std::map<std::string, uint64_t> large_entries;  // entries of at least release.min_entry_bytes_reported
  bool have_metadata = false;
  std::string metadata_version_field;  // METADATA's Version
  std::string requires_python;
  std::vector<std::string> classifiers, requires_dist;
  // PEP 794: the sorted Import-Name values and "name (namespace)" for Import-Namespace ones;
  // import_declared is false when METADATA has neither field (nothing said, not "nothing").
  bool import_declared = false;
  std::vector<std::string> import_names;
  // What the CUDA side says, for WC707: versions the pins name ("12", "12.8"), runtime majors the
  // binaries link, toolkit releases that built the GPU code. gpu_known is false when the binaries
  // were not read (--depth metadata, PEP 658 metadata).
  std::vector<std::string> cuda_pins, cuda_toolkits;
  std::vector<int> cuda_links;
  bool gpu_known = true;
  // PEP 825: the file name's variant label and what variant.json declares (sorted property
  // strings, the namespace priorities), for WC806.
  std::string variant_label;
  bool variant_declared = false;
  std::vector<std::string> variant_properties, variant_priorities;
  // PEP 770, for WC906: each bundled library that carries a graft hash and that an SBOM declares,
  // by that hash: its file name (hash removed) and the identity declared (purl, else name version).
  struct SbomLibrary {
    std::string library, identity;
  };
  std::map<std::string, SbomLibrary> sbom_libraries;
  // PEP 740, for WC914/WC915: "" when no attestation was looked for (a remote file), "none" when
  // none lies beside it, "unverified" when none verified (or there was no trust root), else who
  // published it as the certificate says ("GitHub pytorch/vision release.yml"; the ref left out,
  // it changes with every release).
  std::string provenance;
  // What the regression rules (WC710-WC716) compare with the baseline: per native binary its needs,
  // floors, GPU code and exports (binaries_known false when the binaries were not read), the
  // entry points ("console_scripts:name") and the top-level import names. A run without a
  // baseline empties them once the report has them (drop_baseline_fields; binaries_known stays):
  // compare only members read from a report, or from a run that has a baseline.
  std::vector<BinarySummary> binaries;
  bool binaries_known = false;
  std::vector<std::string> entry_points, top_level;
  bool provenance_published() const {
    return !provenance.empty() && provenance != "none" && provenance != "unverified";
  }
};

// An index-level `{name}-{version}-variants.json` found beside the wheels (WC806).
struct VariantIndexFile {
  std::string path, text;
  std::vector<std::string> problems{};  // reading it, or its hash against the index page (WC806)
};

SetMember summarize(const WheelFacts& f, const Policy& p);
nlohmann::json member_to_json(const SetMember& m);
// Empties what only the comparison with a baseline reads (binaries, entry points, top-level names,
// large entries; binaries_known stays): a run without a baseline holds every member to the end.
void drop_baseline_fields(SetMember& m);
// nullopt when `j` is not a member record (a report from before the release section existed);
// throws std::runtime_error when a binary's packed export names do not decode.
std::optional<SetMember> member_from_json(const nlohmann::json& j);

struct SetVerdict {
  std::vector<Finding> findings;  // entry: the wheel's file name where one wheel is concerned
  std::vector<WaivedFinding> waived;
  size_t members = 0;           // wheels of the release (project and version globs)
  size_t baseline_matched = 0;  // of those, found in the baseline
};

// The set rules. `baseline`: the members of a previous report (WC702), or null.
SetVerdict check_release_set(const std::vector<SetMember>& wheels, const Policy& p,
                             const std::vector<SetMember>* baseline,
                             const std::vector<VariantIndexFile>& variant_indexes = {});
// Whether the policy asks for set rules at all (a release section or a baseline).
bool release_rules_apply(const Policy& p);

// Shards: which of `count` shards a target belongs to (0-based), from its file name alone, so the
// partition does not depend on the order targets are given in.
unsigned shard_of(const std::string& target, unsigned count);
// One digest of a whole target list (order-free), so merge can tell shards of one run.
std::string targets_digest(const std::vector<std::string>& targets);

}  // namespace wc
