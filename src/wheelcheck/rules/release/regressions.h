// What changed between a wheel and its counterpart in the baseline (yesterday's report or wheels),
// and which changes are regressions (WC710-WC716). `check --baseline` and `wheelcheck diff` share it.
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "policy/policy.h"
#include "rules/release/release_set.h"
#include "rules/rules.h"

namespace wc {

struct Added {
  std::vector<std::string> added, removed;
  bool empty() const { return added.empty() && removed.empty(); }
};

struct BinaryChange {
  std::string path, old_path;  // old_path: when the pair matched under another name
  std::string matched;         // "path", "renamed" (same folder, one stem), "moved" (one base name)
  Added needed, sass, ptx;
  std::map<std::string, std::pair<std::string, std::string>> floors;  // GLIBC -> (old, new)
  bool exports_compared = false;
  size_t exports_added = 0;
  std::vector<std::string> removed_names;  // every removed export
  // libtorch*/libc10*: of the removed names, the stable C shims (aoti_torch_*, torch_*: stable-ABI
  // extensions break) and the unstable C++ ones (c10::, at::, torch::: extensions of one release).
  size_t removed_stable = 0, removed_unstable = 0;
  bool empty() const {
    return needed.empty() && sass.empty() && ptx.empty() && floors.empty() && !exports_added && removed_names.empty() &&
           old_path == path;
  }
};

struct PairChanges {
  const SetMember* before = nullptr;
  const SetMember* now = nullptr;
  std::pair<std::string, std::string> tags, requires_python;  // (old, new) when they differ
  Added requires_dist, entry_points, top_level, binaries;
  std::vector<std::string> requires_dist_changed;                                    // "torch: ==2.14.0 -> ==2.15.0"
  std::vector<BinaryChange> changed_binaries;                                        // those with a change
  std::vector<std::pair<std::string, std::pair<std::string, std::string>>> bundled;  // library -> versions
};

// The key wheels of two days pair by: project, python tags, each platform tag's family and
// architecture (manylinux2014_x86_64 pairs with manylinux_2_28_x86_64: a raised floor is WC712's),
// variant. Not the version, not the ABI tag (torch 2.10.0-2's cp312-none is 2.11.0's cp312-cp312).
std::string pairing_key(const SetMember& m);

PairChanges compare_members(const SetMember& before, const SetMember& now);

// Sonames and file names of libraries some binary of `members` needs (WC711's "other wheels link
// against it").
void collect_needed(const std::vector<SetMember>& members, std::set<std::string>& out);

// WC710-WC712, WC714-WC716 for one pair; `needed` from collect_needed over the run and the baseline.
void pair_regressions(const PairChanges& c, const Policy& p, const std::set<std::string>& needed, FindingSink& s);
// WC713: a (project, python, platform, variant) of the baseline that no wheel of the run has now,
// for the projects the run holds.
void matrix_regressions(const std::vector<const SetMember*>& now, const std::vector<SetMember>& baseline,
                        FindingSink& s);
// The devices (sm_XY) on which code of these labels runs, by CUDA's compatibility rules: plain SASS
// on its major with a minor at least its own, `a` SASS on that architecture only, `f` SASS on its
// family (its major, minor at least its own), PTX on that architecture and every later one (a and
// f PTX as their SASS).
std::set<int> runnable_devices(const std::vector<std::string>& labels);

}  // namespace wc
