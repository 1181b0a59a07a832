// Source distributions as members of the release (PEP 625, PEP 643):
//  - WC721: the file name is {normalized_name}-{version}.tar.gz and agrees with PKG-INFO (a .zip is
//    a warning: PyPI takes no new ones);
//  - WC722: PKG-INFO is there and readable;
//  - WC401-WC404: where its entries extract, links and devices, size, readability (as for wheels);
//  - WC720: with Metadata-Version 2.2 or later, every field PKG-INFO does not mark Dynamic must be
//    what the wheels of the same version in the run say (a wheel built from it must match).
#include <algorithm>
#include <map>
#include <set>

#include "facts/sdist.h"
#include "rules/rules.h"
#include "util/parse.h"
#include "util/strings.h"
#include "wheel/entry_names.h"
#include "wheel/filename.h"
#include "wheel/requirement.h"
#include "wheel/version.h"

namespace wc {
namespace {

std::string normalized_version(const std::string& v) {
  auto p = parse_version(v);
  return p ? p->normalized() : v;
}

// A field's values as compared: requirement lists and extras as sets of normalised items, the rest
// as written (trimmed).
std::set<std::string> field_values(const HeaderFile& h, const std::string& field) {
  std::set<std::string> out;
  for (const auto& raw : h.get_all(field)) {
    std::string v(trim(raw));
    if (field == "Requires-Dist") {
      if (auto r = parse_requirement(v)) {
        std::string key = r->canonical_name;
        std::vector<std::string> extras = r->extras;
        std::sort(extras.begin(), extras.end());
        if (!extras.empty()) key += "[" + join(extras, ",") + "]";
        std::string spec = r->specifier;
        spec.erase(std::remove(spec.begin(), spec.end(), ' '), spec.end());
        key += spec;
        if (!r->marker_text.empty()) key += "; " + std::string(trim(r->marker_text));
        v = key;
      }
    } else if (field == "Provides-Extra") {
      v = canonicalize_name(v);
    } else if (field == "Name") {
      v = canonicalize_name(v);
    } else if (field == "Version") {
      v = normalized_version(v);
    } else if (field == "Requires-Python") {
      v.erase(std::remove(v.begin(), v.end(), ' '), v.end());
    }
    out.insert(v);
  }
  return out;
}

std::string shown_values(const std::set<std::string>& v) {
  if (v.empty()) return "nothing";
  std::vector<std::string> items;
  for (const auto& x : v) items.push_back("'" + clip_for_display(x, 80) + "'");
  return join_shown(items, 4);
}

}  // namespace

void sdist_rules(const WheelFacts& f, FindingSink& s) {
  const SdistFacts& sd = f.sdist_facts;
  for (const auto& p : sd.problems) s.add(p.rule, p.message, p.entry);
  const std::string file = std::string(last_component(f.path));
  // WC721: PEP 625's name.
  const bool zip = ends_with_ci(file, ".zip");
  if (zip)
    s.add("WC721", "a .zip source distribution: PEP 625 names sdists .tar.gz, and PyPI takes no new .zip ones", "",
          std::nullopt, Severity::warning);
  else if (!file.ends_with(".tar.gz"))
    s.add("WC721", "'" + clip_for_display(file, 120) + "' is not named .tar.gz (PEP 625)");
  const std::string stem = file.substr(0, file.size() - (zip ? 4 : file.ends_with(".tar.gz") ? 7 : 0));
  const auto dash = stem.rfind('-');
  const std::string name_part = dash == std::string::npos ? stem : stem.substr(0, dash);
  const std::string version_part = dash == std::string::npos ? "" : stem.substr(dash + 1);
  if (!sd.pkg_info) {
    if (!sd.pkg_info_problem.empty())  // empty: the archive itself was unreadable (WC404 says why)
      s.add("WC722", "PKG-INFO: " + sd.pkg_info_problem + " (an installer cannot tell what it builds)");
    return;
  }
  const HeaderFile& h = *sd.pkg_info;
  for (const auto& p : h.problems) s.add("WC722", "PKG-INFO: " + p, sd.top + "/PKG-INFO");
  const std::string name = h.get("Name").value_or(""), version = h.get("Version").value_or("");
  if (name.empty() || version.empty()) {
    s.add("WC722", "PKG-INFO has no " + std::string(name.empty() ? "Name" : "Version"), sd.top + "/PKG-INFO");
    return;
  }
  if (s.policy().sdist.require_static_metadata) {
    const std::string mv = h.get("Metadata-Version").value_or("");
    if (!promises_static_metadata(h))
      s.add("WC722",
            "PKG-INFO is Metadata-Version " + (mv.empty() ? std::string("(none)") : clip_for_display(mv, 40)) +
                ": before 2.2 nothing says which fields are static (PEP 643), so no wheel can be held to them "
                "(sdist.require_static_metadata)",
            sd.top + "/PKG-INFO");
  }
  const std::string want = pep625_sdist_name(name, version);
  if (!zip && file != want) {
    std::string why;
    if (canonicalize_name(name_part) != canonicalize_name(name) ||
        normalized_version(version_part) != normalized_version(version))
      why = "PKG-INFO says " + name + " " + version;
    else
      why =
          "the name is not normalised and escaped (PEP 625: lower case, runs of -_. as one _, the version normalised)";
    s.add("WC721", "'" + clip_for_display(file, 120) + "' should be '" + want + "': " + why);
  }
  if (!sd.top.empty() && sd.top != want.substr(0, want.size() - 7) &&
      canonicalize_name(sd.top.substr(0, sd.top.rfind('-'))) != canonicalize_name(name))
    s.add("WC721", "its top-level folder '" + clip_for_display(sd.top, 120) + "' is not " + name + "-" + version, "",
          std::nullopt, Severity::warning);
}

void sdist_agreement(const WheelFacts& f, const std::vector<WheelFacts>& all, FindingSink& s) {
  const SdistFacts& sd = f.sdist_facts;
  if (!sd.pkg_info) return;
  const HeaderFile& h = *sd.pkg_info;
  if (!promises_static_metadata(h)) return;
  const auto mv = parse_version(h.get("Metadata-Version").value_or(""));
  const std::string name = canonicalize_name(h.get("Name").value_or(""));
  const std::string version = normalized_version(h.get("Version").value_or(""));
  std::set<std::string> dynamic;
  for (const auto& d : h.get_all("Dynamic")) dynamic.insert(to_lower(std::string(trim(d))));
  // Each field from the Metadata-Version that defines it: License-Expression and License-File are
  // 2.4's (PEP 639; setuptools wrote License-File before, outside the standard), Import-Name 2.5's.
  struct Field {
    const char* name;
    const char* since;
  };
  static const Field fields[] = {{"Name", "2.2"},
                                 {"Version", "2.2"},
                                 {"Requires-Python", "2.2"},
                                 {"Requires-Dist", "2.2"},
                                 {"Provides-Extra", "2.2"},
                                 {"Summary", "2.2"},
                                 {"Classifier", "2.2"},
                                 {"Keywords", "2.2"},
                                 {"Project-URL", "2.2"},
                                 {"Requires-External", "2.2"},
                                 {"Provides-Dist", "2.2"},
                                 {"Obsoletes-Dist", "2.2"},
                                 {"License-Expression", "2.4"},
                                 {"License-File", "2.4"},
                                 {"Import-Name", "2.5"},
                                 {"Import-Namespace", "2.5"}};
  std::map<std::string, std::pair<std::string, size_t>> differs;  // field -> (the first wheel's words, wheels)
  for (const auto& w : all) {
    if (w.sdist || !w.metadata || !w.filename.valid || w.filename.canonical_name != name ||
        normalized_version(w.filename.version_text) != version)
      continue;
    for (const auto& [field, since] : fields) {
      auto from = parse_version(since);
      if (!from || compare(*mv, *from) < 0 || dynamic.count(to_lower(field))) continue;
      auto a = field_values(h, field), b = field_values(*w.metadata, field);
      if (a == b) continue;
      auto& slot = differs[field];
      if (slot.second++ == 0)
        slot.first = "PKG-INFO says " + shown_values(a) + ", " + std::string(last_component(w.path)) + " says " +
                     shown_values(b);
    }
  }
  for (const auto& [field, slot] : differs)
    s.add("WC720",
          std::string(field) + " is not Dynamic in PKG-INFO (Metadata-Version " +
              h.get("Metadata-Version").value_or("") + "), so every wheel built from it must say the same: " +
              slot.first + (slot.second > 1 ? " (and " + std::to_string(slot.second - 1) + " more wheels differ)" : ""),
          sd.top + "/PKG-INFO");
}

}  // namespace wc
