#include "rules/release/release_set.h"

#include "rules/release/regressions.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <set>

#include "binary/binary_facts.h"
#include "facts/cuda_facts.h"
#include "rules/rules.h"
#include "rules/supply_chain/sbom_rules.h"
#include "util/parse.h"
#include "util/strings.h"
#include "wheel/entry_names.h"
#include "wheel/requirement.h"
#include "wheel/sbom.h"
#include "wheel/version.h"

namespace wc {
namespace {

using json = nlohmann::json;

std::string some_of(const std::vector<std::string>& names, size_t n = 3) {
  std::vector<std::string> shown(names.begin(), names.begin() + std::min(n, names.size()));
  return join(shown, ", ") + (names.size() > n ? ", ..." : "");
}

// "==13.2.2" (first clause naming a version) -> "13.2"; "" when none.
std::string cuda_version_in(const std::string& specifier) {
  for (size_t i = 0; i + 1 < specifier.size(); ++i) {
    std::string_view op = std::string_view(specifier).substr(i, 2);
    if (op != "==" && op != "~=" && op != ">=") continue;
    std::string_view v = std::string_view(specifier).substr(i + 2);
    while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
    uint64_t major = 0, minor = 0;
    if (!consume_number(v, 999, major)) return "";
    if (consume(v, ".") && consume_number(v, 999, minor)) return std::to_string(major) + "." + std::to_string(minor);
    return std::to_string(major);
  }
  return "";
}

// What the CUDA pins of a wheel name: "-cuNN" package suffixes ("12"), and the version of packages
// that version with CUDA itself (cuda-toolkit==13.2.2 -> "13.2").
std::vector<std::string> cuda_pins_of(const WheelFacts& f, const CudaPolicy& cuda) {
  std::set<std::string> out;
  if (!f.metadata) return {};
  for (const auto& line : f.metadata->get_all("Requires-Dist")) {
    auto r = parse_requirement(line);
    if (!r) continue;
    const std::string& n = r->canonical_name;
    auto dash = n.rfind("-cu");
    if (n.rfind("nvidia-", 0) == 0 && dash != std::string::npos && all_digits(std::string_view(n).substr(dash + 3)) &&
        dash + 3 < n.size())
      out.insert(n.substr(dash + 3));
    else if (n == "cuda-toolkit" || cuda.toolkit_versioned_packages.count(n))
      if (auto v = cuda_version_in(r->specifier); !v.empty()) out.insert(v);
  }
  return {out.begin(), out.end()};
}

std::string key_of(const SetMember& m) {
  return m.project + " " + join(m.python_tags, ".") + "-" + join(m.abi_tags, ".") + "-" + join(m.platform_tags, ".") +
         " " + (m.variant.empty() ? "(no variant)" : m.variant);
}

bool any_glob(const std::vector<std::string>& values, const std::string& pattern) {
  return std::any_of(values.begin(), values.end(), [&](const std::string& v) { return glob_match(pattern, v); });
}

std::vector<std::string> python_abi_pairs(const SetMember& m) {
  std::vector<std::string> out;
  for (const auto& py : m.python_tags)
    for (const auto& abi : m.abi_tags) out.push_back(py + "-" + abi);
  return out;
}

bool in_release(const SetMember& m, const ReleasePolicy& r) {
  if (!r.project.empty() && !glob_match(r.project, m.project)) return false;
  if (!r.version.empty() && !glob_match(r.version, m.public_version)) return false;
  return true;
}

// --- WC703 / WC704: the matrix --------------------------------------------------------------------

void matrix(const std::vector<const SetMember*>& ms, const ReleasePolicy& r, FindingSink& s) {
  if (r.python.empty() && r.platforms.empty() && r.variants.empty()) return;
  std::vector<std::string> pythons = r.python.empty() ? std::vector<std::string>{"*"} : r.python;
  std::vector<std::string> platforms = r.platforms.empty() ? std::vector<std::string>{"*"} : r.platforms;
  std::vector<std::string> variants = r.variants.empty() ? std::vector<std::string>{"*"} : r.variants;
  auto excepted = [&](const std::string& py, const std::string& plat, const std::string& var) {
    for (const auto& e : r.exceptions)
      if ((e.python.empty() || glob_match(e.python, py)) && (e.platform.empty() || glob_match(e.platform, plat)) &&
          (e.variant.empty() || glob_match(e.variant, var)))
        return true;
    return false;
  };
  auto covers = [](const SetMember& m, const std::string& py, const std::string& plat, const std::string& var) {
    return any_glob(python_abi_pairs(m), py) && any_glob(m.platform_tags, plat) && (var == "*" || m.variant == var);
  };
  std::vector<bool> expected(ms.size(), false);
  for (const auto& py : pythons)
    for (const auto& plat : platforms)
      for (const auto& var : variants) {
        if (excepted(py, plat, var)) {
          for (size_t i = 0; i < ms.size(); ++i)  // a wheel for an excepted combination is allowed, not required
            if (covers(*ms[i], py, plat, var)) expected[i] = true;
          continue;
        }
        bool found = false;
        for (size_t i = 0; i < ms.size(); ++i)
          if (covers(*ms[i], py, plat, var)) found = expected[i] = true;
        if (!found)
          s.add("WC703", "no wheel for " + py + " / " + plat + " / " + (var.empty() ? "(no variant)" : var) +
                             " in the release set");
      }
  for (size_t i = 0; i < ms.size(); ++i)
    if (!expected[i])
      s.add("WC704",
            "not in the expected matrix (" + join(python_abi_pairs(*ms[i]), ", ") + " / " +
                join(ms[i]->platform_tags, ".") + " / " + (ms[i]->variant.empty() ? "(no variant)" : ms[i]->variant) +
                ")",
            ms[i]->filename);
}

// --- WC705: metadata that must agree --------------------------------------------------------------

// Reports the wheels whose `value` differs from the most common one.
template <typename Value, typename Show>
void agree(const std::vector<const SetMember*>& ms, const std::string& field, Value&& value, Show&& show,
           FindingSink& s) {
  std::map<std::string, std::vector<std::string>> by;
  for (const auto* m : ms)
    if (m->have_metadata) by[value(*m)].push_back(m->filename);
  if (by.size() < 2) return;
  auto common = std::max_element(by.begin(), by.end(),
                                 [](const auto& a, const auto& b) { return a.second.size() < b.second.size(); });
  for (const auto& [v, names] : by) {
    if (v == common->first) continue;
    for (const auto& n : names)
      s.add("WC705",
            field + " is " + show(v) + " here; " + std::to_string(common->second.size()) + " other wheel" +
                (common->second.size() == 1 ? "" : "s") + " of the release (" + some_of(common->second) + ") say " +
                show(common->first),
            n);
  }
}

// A requirement as compared across wheels: name, extras and specifier (the marker decides where it applies).
std::string identity(const Requirement& r) {
  std::vector<std::string> extras = r.extras;
  std::sort(extras.begin(), extras.end());
  std::string spec = r.specifier;
  spec.erase(std::remove(spec.begin(), spec.end(), ' '), spec.end());
  return r.canonical_name + (extras.empty() ? "" : "[" + join(extras, ",") + "]") + spec +
         (r.url.empty() ? "" : " @ " + r.url);
}

// Requires-Dist: within one variant (a variant's own pins differ from another's by design), a
// requirement another wheel declares must be in this wheel too when its marker applies on this
// wheel's platform and Python (a marker that limits it to x86_64 excuses an aarch64 wheel).
void requirements(const std::vector<const SetMember*>& ms, FindingSink& s) {
  struct Parsed {
    const SetMember* m;
    WheelFilename name;
    std::vector<Requirement> reqs;
    std::set<std::string> here;  // identities of its own requirements that apply to itself
  };
  std::vector<Parsed> ps;
  for (const auto* m : ms) {
    if (!m->have_metadata) continue;
    Parsed p{m, parse_wheel_filename(m->filename), {}, {}};
    for (const auto& line : m->requires_dist)
      if (auto r = parse_requirement(line)) p.reqs.push_back(*r);
    MarkerEnvironment env = environment_for(p.name);
    if (m->variant_declared) add_variant_environment(env, m->variant_properties);
    for (const auto& r : p.reqs)
      if (evaluate(r, env) != Truth::no) p.here.insert(identity(r));
    ps.push_back(std::move(p));
  }
  for (const auto& b : ps) {
    MarkerEnvironment env = environment_for(b.name);
    if (b.m->variant_declared) add_variant_environment(env, b.m->variant_properties);
    std::map<std::string, std::pair<std::string, std::vector<std::string>>> missing;  // identity -> (line, declared by)
    for (const auto& a : ps) {
      // PEP 825 variants share their Requires-Dist (markers select per variant); local-version
      // variants (+cu128) pin their own.
      bool pep825 = !a.m->variant_label.empty() && !b.m->variant_label.empty();
      if (&a == &b || (a.m->variant != b.m->variant && !pep825)) continue;
      for (const auto& r : a.reqs) {
        if (evaluate(r, env) != Truth::yes) continue;  // does not apply here (or cannot tell)
        std::string id = identity(r);
        if (b.here.count(id)) continue;
        auto& slot = missing[id];
        slot.first = r.name + r.specifier + (r.marker_text.empty() ? "" : "; " + r.marker_text);
        slot.second.push_back(a.m->filename);
      }
    }
    for (auto& [id, slot] : missing) std::sort(slot.second.begin(), slot.second.end());
    for (const auto& [id, slot] : missing)
      s.add("WC705",
            "lacks Requires-Dist '" + clip_for_display(slot.first, 200) + "', which " +
                std::to_string(slot.second.size()) + " other " + (b.m->variant.empty() ? "" : b.m->variant + " ") +
                "wheel" + (slot.second.size() == 1 ? "" : "s") + " of the release declare (" + some_of(slot.second) +
                ") with a marker that holds on this wheel's platform",
            b.m->filename);
  }
}

// --- WC707: CUDA variants across the set -----------------------------------------------------------

struct Signature {
  std::vector<std::string> pins, toolkits;
  std::vector<int> links;
  bool operator==(const Signature&) const = default;
  bool operator<(const Signature& o) const {
    return std::tie(pins, toolkits, links) < std::tie(o.pins, o.toolkits, o.links);
  }
  bool empty() const { return pins.empty() && toolkits.empty() && links.empty(); }
  std::string show() const {
    std::vector<std::string> parts;
    if (!pins.empty()) parts.push_back("CUDA " + join(pins, "/") + " pins");
    if (!links.empty()) {
      std::vector<std::string> l;
      for (int x : links) l.push_back(std::to_string(x));
      parts.push_back("the CUDA " + join(l, "/") + " runtime");
    }
    if (!toolkits.empty()) parts.push_back("GPU code from CUDA " + join(toolkits, "/"));
    return parts.empty() ? "no CUDA pins, runtime or GPU code" : join(parts, ", ");
  }
};

void variants(const std::vector<const SetMember*>& ms, FindingSink& s) {
  std::map<std::string, std::vector<const SetMember*>> by_label;
  for (const auto* m : ms)
    if (m->variant.rfind("cu", 0) == 0) by_label[m->variant].push_back(m);
  if (by_label.empty()) return;
  // A wheel whose binaries were not read (metadata depth) is compared on its pins alone.
  auto sig = [](const SetMember& m) {
    return m.gpu_known ? Signature{m.cuda_pins, m.cuda_toolkits, m.cuda_links} : Signature{m.cuda_pins, {}, {}};
  };
  auto matches = [](const SetMember& m, const Signature& s) {
    return m.gpu_known ? Signature{m.cuda_pins, m.cuda_toolkits, m.cuda_links} == s : m.cuda_pins == s.pins;
  };
  std::map<std::string, Signature> majority;
  for (const auto& [label, members] : by_label) {
    std::map<Signature, size_t> count;
    for (const auto* m : members) count[sig(*m)] += m->gpu_known ? 2 : 1;  // fuller evidence weighs more
    majority[label] = std::max_element(count.begin(), count.end(), [](const auto& a, const auto& b) {
                        return a.second < b.second;
                      })->first;
  }
  for (const auto& [label, members] : by_label) {
    const Signature& mine = majority[label];
    for (const auto* m : members) {
      if (matches(*m, mine)) continue;
      Signature own = sig(*m);
      std::string like;
      for (const auto& [other, osig] : majority)
        if (other != label && matches(*m, osig) && !own.empty()) like = other;
      s.add("WC707",
            "labelled " + label + ", but here: " + own.show() +
                (like.empty() ? "" : " (as the " + like + " wheels have)") + "; the other " + label +
                " wheels: " + mine.show(),
            m->filename);
    }
  }
  // Two labels whose wheels are indistinguishable: one label is wrong.
  for (auto a = majority.begin(); a != majority.end(); ++a)
    for (auto b = std::next(a); b != majority.end(); ++b)
      if (a->second == b->second && !a->second.empty())
        s.add("WC707", "the " + a->first + " and " + b->first + " wheels are indistinguishable (both " +
                           a->second.show() + "): one of the labels is wrong");
}

// --- WC702: sizes against the baseline (and WC915: provenance against it) ----------------------------

std::string growth(uint64_t from, uint64_t to) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.0f%%", from ? (double(to) / double(from) - 1) * 100 : 100.0);
  return buf;
}

size_t sizes(const std::vector<const SetMember*>& ms, const std::vector<SetMember>& baseline, const ReleasePolicy& r,
             FindingSink& s) {
  std::map<std::string, const SetMember*> before;
  for (const auto& b : baseline) before[key_of(b)] = &b;
  size_t matched = 0;
  char ratio[16];
  std::snprintf(ratio, sizeof ratio, "%.2f", r.max_growth_ratio);
  for (const auto* m : ms) {
    auto it = before.find(key_of(*m));
    if (it == before.end()) continue;
    ++matched;
    const SetMember& b = *it->second;
    // WC915: provenance the baseline's file had, lost or from another publisher now.
    if (b.provenance_published() && !m->provenance.empty()) {
      if (!m->provenance_published())
        s.add("WC915",
              m->filename + ": published by " + b.provenance + " in the baseline (" + b.filename + "), now " +
                  (m->provenance == "none" ? "without an attestation" : "with no verified attestation"),
              m->filename);
      else if (m->provenance != b.provenance)
        s.add("WC915",
              m->filename + ": the publisher changed from " + b.provenance + " (baseline " + b.filename + ") to " +
                  m->provenance,
              m->filename);
    }
    // The entries that grew most (by bytes), for the message and their own findings.
    std::vector<std::pair<int64_t, std::string>> grew;
    for (const auto& [name, size] : m->large_entries) {
      auto old = b.large_entries.find(name);
      if (old != b.large_entries.end() && size > old->second) grew.push_back({int64_t(size - old->second), name});
    }
    std::sort(grew.rbegin(), grew.rend());
    bool wheel_over = b.size && double(m->size) > double(b.size) * r.max_growth_ratio;
    if (wheel_over) {
      std::vector<std::string> most;
      for (size_t i = 0; i < grew.size() && i < 3; ++i)
        most.push_back(grew[i].second + " (" + human_bytes(b.large_entries.at(grew[i].second)) + " -> " +
                       human_bytes(m->large_entries.at(grew[i].second)) + ")");
      s.add("WC702",
            "grew from " + human_bytes(b.size) + " to " + human_bytes(m->size) + " (" + growth(b.size, m->size) +
                ") since the baseline (" + b.filename + "), over the allowed ratio " + ratio +
                (most.empty() ? "" : "; grew most: " + join(most, ", ")),
            m->filename);
      continue;
    }
    for (const auto& [bytes, name] : grew) {
      uint64_t old = b.large_entries.at(name), now = m->large_entries.at(name);
      if (double(now) > double(old) * r.max_growth_ratio)
        s.add("WC702",
              name + " grew from " + human_bytes(old) + " to " + human_bytes(now) + " (" + growth(old, now) +
                  ") since the baseline, over the allowed ratio " + ratio,
              m->filename);
    }
  }
  return matched;
}

}  // namespace

SetMember summarize(const WheelFacts& f, const Policy& p) {
  SetMember m;
  m.path = f.path;
  m.filename = f.filename.raw;
  m.project = f.filename.canonical_name;
  m.version = f.filename.version_text;
  if (f.filename.version) {
    m.public_version = f.filename.version->public_version();
    m.variant = join(f.filename.version->local, ".");
    if (f.filename.variant_label) m.variant = *f.filename.variant_label;  // PEP 825: the label is the variant
  } else {
    m.public_version = f.filename.version_text;
  }
  m.python_tags = f.filename.python_tags;
  m.abi_tags = f.filename.abi_tags;
  m.platform_tags = f.filename.platform_tags;
  m.size = f.file_size;
  for (const auto& e : f.entries)
    if (e.size >= p.release.min_entry_bytes_reported && e.kind == EntryKind::file) m.large_entries[e.name] = e.size;
  if (f.metadata) {
    m.have_metadata = true;
    m.metadata_version_field = f.metadata->get("Version").value_or("");
    m.requires_python = std::string(trim(f.metadata->get("Requires-Python").value_or("")));
    m.classifiers = f.metadata->get_all("Classifier");
    std::sort(m.classifiers.begin(), m.classifiers.end());
    m.requires_dist = f.metadata->get_all("Requires-Dist");
    auto names = f.metadata->get_all("Import-Name"), spaces = f.metadata->get_all("Import-Namespace");
    m.import_declared = !names.empty() || !spaces.empty();
    m.import_names = declared_import_names(names);
    for (const auto& n : declared_import_names(spaces)) m.import_names.push_back(n + " (namespace)");
    std::sort(m.import_names.begin(), m.import_names.end());
  }
  m.cuda_pins = cuda_pins_of(f, p.cuda);
  m.gpu_known = !f.metadata_depth;
  m.binaries_known = !f.metadata_depth && !f.from_index_metadata;
  if (m.binaries_known) m.binaries = summarize_binaries(f);
  m.entry_points = entry_point_names(f);
  m.top_level = top_level_names(f);
  if (f.filename.variant_label) m.variant_label = *f.filename.variant_label;
  if (const auto& doc = f.variant; doc && f.filename.variant_label && doc->variants.count(m.variant_label)) {
    m.variant_declared = true;
    m.variant_properties = variant_property_strings(doc->variants.at(m.variant_label));
    m.variant_priorities = doc->namespace_priority;
  }
  if (!f.sboms.empty()) {
    // WC906 compares what a graft is declared as across wheels: only what an exact link declares (a
    // name match may be another copy's component), by its purl without qualifiers (arch= and
    // distro= differ between wheels of one build).
    SbomCoverage cov = sbom_coverage(f);
    for (size_t i = 0; i < cov.bundled.size(); ++i) {
      const auto& link = cov.declared_by[i];
      if (!link || link->how == "name" || cov.bundled[i].graft_hash.empty()) continue;
      const SbomComponent& c = f.sboms[link->document].components[link->component];
      std::string identity = c.name + " " + c.version;
      if (Purl pu; !c.purl.empty() && parse_purl(c.purl, pu))
        identity = "pkg:" + pu.type + "/" + (pu.name_space.empty() ? "" : pu.name_space + "/") + pu.name +
                   (pu.version.empty() ? "" : "@" + pu.version);
      else if (!c.purl.empty())
        identity = c.purl;
      m.sbom_libraries[cov.bundled[i].graft_hash] = {cov.bundled[i].original, identity};
    }
  }
  if (const ProvenanceFacts& pv = f.provenance; pv.looked || !pv.attestations.empty()) {
    m.provenance = pv.attestations.empty() ? "none" : "unverified";
    for (const auto& a : pv.attestations) {
      if (!a.result.verified) continue;
      const Publisher& pub = a.result.publisher;
      m.provenance =
          pub.kind.empty() ? "identity " + a.result.identity.san + " (" + a.result.identity.issuer + ")" : pub.kind;
      for (const std::string* x : {&pub.repository, &pub.email, &pub.workflow})
        if (!x->empty()) m.provenance += " " + *x;
      break;
    }
  }
  if (m.gpu_known) {
    CudaFacts c = derive_cuda_facts(f, p.cuda);
    std::set<int> links;
    for (const auto& l : c.links) links.insert(l.major);
    m.cuda_links.assign(links.begin(), links.end());
    std::set<std::string> toolkits;
    for (const auto& t : c.toolkits) toolkits.insert(t.version);
    m.cuda_toolkits.assign(toolkits.begin(), toolkits.end());
  }
  return m;
}

json member_to_json(const SetMember& m) {
  json j = {{"filename", m.filename},  {"project", m.project},
            {"version", m.version},    {"public_version", m.public_version},
            {"variant", m.variant},    {"python_tags", m.python_tags},
            {"abi_tags", m.abi_tags},  {"platform_tags", m.platform_tags},
            {"size", m.size},          {"large_entries", m.large_entries},
            {"gpu_known", m.gpu_known}};
  if (m.have_metadata)
    j["metadata"] = {{"version", m.metadata_version_field},
                     {"requires_python", m.requires_python},
                     {"classifiers", m.classifiers},
                     {"requires_dist", m.requires_dist}};
  if (m.have_metadata && m.import_declared) j["metadata"]["import_names"] = m.import_names;
  json cuda = {{"pins", m.cuda_pins}, {"toolkits", m.cuda_toolkits}, {"links", m.cuda_links}};
  j["cuda"] = cuda;
  if (!m.variant_label.empty()) {
    j["variant_label"] = m.variant_label;
    if (m.variant_declared)
      j["variant_declaration"] = {{"properties", m.variant_properties}, {"namespace_priority", m.variant_priorities}};
  }
  if (!m.provenance.empty()) j["provenance"] = m.provenance;
  if (m.binaries_known) {
    json bins = json::array();
    for (const auto& b : m.binaries) bins.push_back(binary_summary_to_json(b));
    j["binaries"] = std::move(bins);
  }
  if (!m.entry_points.empty()) j["entry_points"] = m.entry_points;
  if (!m.top_level.empty()) j["top_level"] = m.top_level;
  if (!m.sbom_libraries.empty()) {
    json libs = json::object();
    for (const auto& [hash, l] : m.sbom_libraries) libs[hash] = {{"library", l.library}, {"identity", l.identity}};
    j["sbom_libraries"] = libs;
  }
  return j;
}

void drop_baseline_fields(SetMember& m) {
  decltype(m.binaries)().swap(m.binaries);  // clear() would keep the capacity
  decltype(m.entry_points)().swap(m.entry_points);
  decltype(m.top_level)().swap(m.top_level);
  decltype(m.large_entries)().swap(m.large_entries);
}

std::optional<SetMember> member_from_json(const json& j) {
  if (!j.is_object() || !j.contains("filename")) return std::nullopt;
  try {
    SetMember m;
    m.filename = j.at("filename").get<std::string>();
    m.project = j.value("project", "");
    m.version = j.value("version", "");
    m.public_version = j.value("public_version", "");
    m.variant = j.value("variant", "");
    m.python_tags = j.value("python_tags", std::vector<std::string>{});
    m.abi_tags = j.value("abi_tags", std::vector<std::string>{});
    m.platform_tags = j.value("platform_tags", std::vector<std::string>{});
    m.size = j.value("size", uint64_t{0});
    m.large_entries = j.value("large_entries", std::map<std::string, uint64_t>{});
    m.gpu_known = j.value("gpu_known", true);
    m.variant_label = j.value("variant_label", "");
    if (j.contains("variant_declaration") && j["variant_declaration"].is_object()) {
      m.variant_declared = true;
      m.variant_properties = j["variant_declaration"].value("properties", std::vector<std::string>{});
      m.variant_priorities = j["variant_declaration"].value("namespace_priority", std::vector<std::string>{});
    }
    if (j.contains("metadata")) {
      const json& md = j.at("metadata");
      m.have_metadata = true;
      m.metadata_version_field = md.value("version", "");
      m.requires_python = md.value("requires_python", "");
      m.classifiers = md.value("classifiers", std::vector<std::string>{});
      m.requires_dist = md.value("requires_dist", std::vector<std::string>{});
      m.import_declared = md.contains("import_names");
      m.import_names = md.value("import_names", std::vector<std::string>{});
    }
    if (j.contains("provenance") && j["provenance"].is_string()) m.provenance = j["provenance"];
    if (j.contains("binaries") && j["binaries"].is_array()) {
      m.binaries_known = true;
      for (const auto& b : j["binaries"]) m.binaries.push_back(binary_summary_from_json(b));
    }
    m.entry_points = j.value("entry_points", std::vector<std::string>{});
    m.top_level = j.value("top_level", std::vector<std::string>{});
    if (j.contains("sbom_libraries") && j["sbom_libraries"].is_object())
      for (const auto& [hash, l] : j["sbom_libraries"].items())
        m.sbom_libraries[hash] = {l.value("library", ""), l.value("identity", "")};
    if (j.contains("cuda")) {
      const json& c = j.at("cuda");
      m.cuda_pins = c.value("pins", std::vector<std::string>{});
      m.cuda_toolkits = c.value("toolkits", std::vector<std::string>{});
      m.cuda_links = c.value("links", std::vector<int>{});
    }
    return m;
  } catch (const json::exception&) {
    return std::nullopt;  // a malformed record is not a member
  }
}

bool release_rules_apply(const Policy& p) { return p.release.defined || p.release.consistency; }

namespace {

// --- WC806: PEP 825 variants across a release -----------------------------------------------------

bool prefix_consistent(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  size_t n = std::min(a.size(), b.size());
  return std::equal(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(n), b.begin());
}

std::string shown_list(const std::vector<std::string>& v) { return "[" + join(v, ", ") + "]"; }

// Within one release: a label means one property set, and the namespace priorities of every
// wheel are one list or prefixes of it (installers merge them so).
void variant_declarations(const std::vector<const SetMember*>& ms, FindingSink& s) {
  std::map<std::string, const SetMember*> first_of_label;
  const SetMember* longest = nullptr;
  for (const auto* m : ms) {
    if (!m->variant_declared) continue;
    auto [it, fresh] = first_of_label.emplace(m->variant_label, m);
    if (!fresh && it->second->variant_properties != m->variant_properties)
      s.add("WC806",
            "variant label '" + m->variant_label + "' declares {" + join(m->variant_properties, ", ") +
                "} here, but {" + join(it->second->variant_properties, ", ") + "} in " + it->second->filename +
                ": one label must mean one property set in a release",
            m->filename);
    if (longest && !prefix_consistent(longest->variant_priorities, m->variant_priorities))
      s.add("WC806",
            "default-priorities.namespace " + shown_list(m->variant_priorities) + " and " + longest->filename + "'s " +
                shown_list(longest->variant_priorities) +
                " are not one list or a prefix of it: installers cannot merge them",
            m->filename);
    else if (!longest || m->variant_priorities.size() > longest->variant_priorities.size())
      longest = m;
  }
}

// Requires-Dist markers that name a variant label or property no wheel of the release declares
// select nothing (a typo, or a variant that was dropped).
void variant_markers(const std::vector<const SetMember*>& ms, FindingSink& s) {
  std::set<std::string> labels, namespaces, features, properties;
  bool any = false;
  for (const auto* m : ms) {
    if (m->variant_label.empty()) continue;
    any = true;
    labels.insert(m->variant_label);
    for (const auto& p : m->variant_properties) {
      properties.insert(p);
      features.insert(p.substr(0, p.rfind(" :: ")));
      namespaces.insert(p.substr(0, p.find(" :: ")));
    }
  }
  if (!any) return;
  std::set<std::pair<std::string, std::string>> said;
  for (const auto* m : ms)
    for (const auto& line : m->requires_dist) {
      auto r = parse_requirement(line);
      if (!r) continue;
      for (const auto& [var, lit] : variant_marker_literals(*r)) {
        const std::set<std::string>& known = var == "variant_label"        ? labels
                                             : var == "variant_namespaces" ? namespaces
                                             : var == "variant_features"   ? features
                                                                           : properties;
        if (known.count(lit) || (var == "variant_label" && lit.empty()) || !said.insert({var, lit}).second) continue;
        s.add("WC806",
              "Requires-Dist '" + clip_for_display(line, 160) + "' tests " + var + " for '" + lit +
                  "', which no wheel of the release declares: the requirement never applies",
              m->filename, std::nullopt, Severity::warning);
      }
    }
}

// An index file {name}-{version}-variants.json beside the wheels: the labels they use, with their
// properties, and priorities consistent with theirs.
void variant_index(const VariantIndexFile& file, const std::vector<SetMember>& all, FindingSink& s) {
  std::string name = std::string(last_component(file.path));
  for (const auto& p : file.problems) s.add("WC806", name + ": " + p, name);
  if (file.text.empty() && !file.problems.empty()) return;
  VariantDocument doc = parse_variant_document(file.text);
  for (const auto& e : doc.errors) s.add("WC806", name + ": " + e, name);
  std::vector<const SetMember*> ms;
  for (const auto& m : all) {
    if (m.variant_label.empty()) continue;
    std::string stem = escape_name(m.project) + "-" + m.version + "-variants.json";
    if (to_lower(name) == to_lower(stem)) ms.push_back(&m);
  }
  if (ms.empty()) {
    s.add("WC806", name + ": no variant wheel of this project and version is in the run", name, std::nullopt,
          Severity::warning);
    return;
  }
  std::set<std::string> used;
  for (const auto* m : ms) {
    used.insert(m->variant_label);
    auto it = doc.variants.find(m->variant_label);
    if (it == doc.variants.end()) {
      s.add("WC806",
            name + " lacks the label '" + m->variant_label + "' that " + m->filename +
                " uses: installers that read the index treat that wheel as incompatible",
            m->filename);
      continue;
    }
    auto props = variant_property_strings(it->second);
    if (m->variant_declared && props != m->variant_properties)
      s.add("WC806",
            name + " gives '" + m->variant_label + "' {" + join(props, ", ") + "}, but " + m->filename + " declares {" +
                join(m->variant_properties, ", ") + "}: installers choose by the index",
            m->filename);
    if (m->variant_declared && !prefix_consistent(doc.namespace_priority, m->variant_priorities))
      s.add("WC806",
            name + "'s default-priorities.namespace " + shown_list(doc.namespace_priority) + " and " + m->filename +
                "'s " + shown_list(m->variant_priorities) + " are not one list or a prefix of it",
            m->filename);
  }
  for (const auto& label : doc.labels_in_order)
    if (!used.count(label))
      s.add("WC806",
            name + " lists the label '" + label +
                "' that no wheel in the run uses (another platform's, or a wheel missing from the release)",
            name, std::nullopt, Severity::warning);
}

// --- WC707: a follower's variant is the pinned leader's ------------------------------------------
// torchvision 0.24.0+cu128 pinning torch==2.9.0 installs beside the torch 2.9.0 wheel of the same
// index: the torch wheel in the run that the pin admits for the same python and platform must
// carry the same local label (and a pin that names a label must name this one).
void variant_follows(const std::vector<SetMember>& all, const ReleasePolicy& r, FindingSink& s) {
  for (const auto& [leader_name, followers] : r.variant_follows) {
    const std::string leader = canonicalize_name(leader_name);
    std::set<std::string> follow;
    for (const auto& f : followers) follow.insert(canonicalize_name(f));
    std::multimap<std::string, const SetMember*> leaders;  // by public version: one lookup a pin
    for (const auto& l : all)
      if (l.project == leader) leaders.emplace(l.public_version, &l);
    for (const auto& m : all) {
      if (!follow.count(m.project)) continue;
      for (const auto& text : m.requires_dist) {
        auto req = parse_requirement(text);
        if (!req || req->canonical_name != leader || req->specifier.rfind("==", 0) != 0 || req->marker) continue;
        std::string pinned(trim(std::string_view(req->specifier).substr(2)));
        if (pinned.find(',') != std::string::npos || pinned.find('*') != std::string::npos) continue;
        auto pv = parse_version(pinned);
        if (!pv) continue;
        if (!pv->local.empty()) {
          std::string label = join(pv->local, ".");
          if (label != m.variant)
            s.add("WC707",
                  "labelled " + (m.variant.empty() ? std::string("(no variant)") : m.variant) + ", but it pins " +
                      req->name + "==" + pinned + ", the " + label + " build",
                  m.filename);
          continue;
        }
        auto [first, last] = leaders.equal_range(pv->public_version());
        for (auto it = first; it != last; ++it) {
          const SetMember& l = *it->second;
          bool same_python = std::any_of(l.python_tags.begin(), l.python_tags.end(), [&](const std::string& t) {
            return std::find(m.python_tags.begin(), m.python_tags.end(), t) != m.python_tags.end();
          });
          bool same_platform = std::any_of(l.platform_tags.begin(), l.platform_tags.end(), [&](const std::string& t) {
            return std::find(m.platform_tags.begin(), m.platform_tags.end(), t) != m.platform_tags.end();
          });
          if (!same_python || !same_platform || l.variant == m.variant) continue;
          s.add("WC707",
                "labelled " + (m.variant.empty() ? std::string("(no variant)") : m.variant) + ", but the " + req->name +
                    " wheel its pin " + req->name + "==" + pinned + " takes in this run is " +
                    (l.variant.empty() ? std::string("unlabelled") : l.variant) + " (" + l.filename +
                    "): one index would install a mixed set",
                m.filename);
        }
      }
    }
  }
}

// --- WC708: stale nightlies --------------------------------------------------------------------
// The version's .devYYYYMMDD against today's date (UTC).
void nightly_age(const std::vector<SetMember>& all, const ReleasePolicy& r, FindingSink& s) {
  if (r.max_nightly_age_days <= 0) return;
  using namespace std::chrono;
  const sys_days today = floor<days>(system_clock::now());
  for (const auto& m : all) {
    auto v = parse_version(m.version);
    if (!v || !v->dev || *v->dev < 19700101 || *v->dev > 99991231) continue;
    const auto n = *v->dev;
    year_month_day ymd{year(int(n / 10000)), month(unsigned(n / 100 % 100)), day(unsigned(n % 100))};
    if (!ymd.ok()) continue;
    const auto age = (today - sys_days(ymd)).count();
    if (age > r.max_nightly_age_days)
      s.add("WC708",
            "nightly dev" + std::to_string(n) + " is " + std::to_string(age) + " days old, over the policy's " +
                std::to_string(r.max_nightly_age_days) + " (release.max_nightly_age_days)",
            m.filename);
  }
}

// --- WC914: one publisher per project across the run ----------------------------------------------
// A release whose files were published by two workflows, or partly not attested at all, is how a
// hijacked or hand-uploaded file looks among the ones CI published.
void provenance_publishers(const std::vector<SetMember>& all, FindingSink& s) {
  std::map<std::string, std::map<std::string, std::vector<std::string>>> by_project;  // project -> publisher -> files
  for (const auto& m : all)
    if (!m.provenance.empty() && !m.project.empty()) by_project[m.project][m.provenance].push_back(m.filename);
  for (auto& [project, publishers] : by_project) {
    std::vector<std::string> published, unattested;
    size_t files = 0;
    for (auto& [who, names] : publishers) {
      std::sort(names.begin(), names.end());
      files += names.size();
      std::string list = names.front() + (names.size() > 1 ? " and " + std::to_string(names.size() - 1) + " more" : "");
      if (who == "none" || who == "unverified")
        unattested.push_back(std::to_string(names.size()) + " " + (who == "none" ? "without" : "with no verified") +
                             " attestation (" + list + ")");
      else
        published.push_back(who + " (" + std::to_string(names.size()) + ": " + list + ")");
    }
    if (published.empty()) continue;  // nothing attested in this project: WC913's matter
    if (published.size() > 1)
      s.add("WC914", project + ": " + std::to_string(published.size()) + " publishers across its " +
                         std::to_string(files) + " files: " + join(published, "; "));
    if (!unattested.empty())
      s.add("WC914", project + ": published by " + join(published, "; ") + ", but " + join(unattested, "; "));
  }
}

// --- WC906: one grafted library, one identity -----------------------------------------------------
// auditwheel's graft hash is the start of the library file's sha256: the same 8 hex in two wheels
// are the same bytes, which their SBOMs must declare as the same purl and version.
void sbom_identities(const std::vector<SetMember>& all, FindingSink& s) {
  std::map<std::string, std::map<std::string, std::vector<const SetMember*>>> by_hash;
  for (const auto& m : all)
    for (const auto& [hash, l] : m.sbom_libraries) by_hash[hash][l.identity].push_back(&m);
  for (const auto& [hash, identities] : by_hash) {
    if (identities.size() < 2) continue;
    std::string library, said;
    for (const auto& [identity, members] : identities) {
      if (library.empty()) library = members.front()->sbom_libraries.at(hash).library;
      said += (said.empty() ? "" : "; ") + identity + " in " + members.front()->filename;
      if (members.size() > 1) said += " and " + std::to_string(members.size() - 1) + " more";
    }
    s.add("WC906", library + " (graft hash " + hash + "): one set of bytes declared as " + said,
          identities.begin()->second.front()->filename);
  }
}

// The agreement rules over one group of wheels.
void consistency(const std::vector<const SetMember*>& ms, const ReleasePolicy& r, FindingSink& s) {
  const auto& fields = r.consistent_fields;
  auto wants = [&](const char* f) { return std::find(fields.begin(), fields.end(), f) != fields.end(); };
  if (wants("Version")) {
    agree(
        ms, "the public version", [](const SetMember& m) { return m.public_version; },
        [](const std::string& x) { return "'" + x + "'"; }, s);
    agree(
        ms, "METADATA's Version (without the local part)",
        [](const SetMember& m) {
          auto v = parse_version(m.metadata_version_field);
          return v ? v->public_version() : m.metadata_version_field;
        },
        [](const std::string& x) { return "'" + x + "'"; }, s);
  }
  if (wants("Requires-Python"))
    agree(
        ms, "Requires-Python", [](const SetMember& m) { return m.requires_python; },
        [](const std::string& x) { return x.empty() ? std::string("(none)") : "'" + x + "'"; }, s);
  if (wants("Classifier"))
    agree(
        ms, "the Classifier list", [](const SetMember& m) { return join(m.classifiers, "\n"); },
        [](const std::string& x) {
          return "[" + std::to_string(x.empty() ? 0 : std::count(x.begin(), x.end(), '\n') + 1) + " classifiers]";
        },
        s);
  if (wants("Import-Name"))
    agree(
        ms, "the Import-Name/Import-Namespace set (PEP 794)",
        [](const SetMember& m) { return m.import_declared ? "[" + join(m.import_names, ", ") + "]" : std::string(); },
        [](const std::string& x) { return x.empty() ? std::string("(not declared)") : x; }, s);
  if (wants("Requires-Dist")) requirements(ms, s);
  variants(ms, s);
  variant_declarations(ms, s);
  variant_markers(ms, s);
}

}  // namespace

SetVerdict check_release_set(const std::vector<SetMember>& wheels, const Policy& p,
                             const std::vector<SetMember>* baseline,
                             const std::vector<VariantIndexFile>& variant_indexes) {
  SetVerdict v;
  FindingSink s(p);
  for (const auto& file : variant_indexes) variant_index(file, wheels, s);
  const ReleasePolicy& r = p.release;
  variant_follows(wheels, r, s);
  nightly_age(wheels, r, s);
  sbom_identities(wheels, s);
  provenance_publishers(wheels, s);
  std::vector<const SetMember*> ms;  // in file name order: the findings do not depend on input or shard order
  for (const auto& m : wheels)
    if (in_release(m, r)) ms.push_back(&m);
  std::sort(ms.begin(), ms.end(), [](const SetMember* a, const SetMember* b) { return a->filename < b->filename; });
  v.members = ms.size();
  if (r.defined) {
    matrix(ms, r, s);
    consistency(ms, r, s);
  } else if (r.consistency) {
    // No release declared: every group of one project and version in the run is a release whose
    // wheels must agree.
    std::map<std::pair<std::string, std::string>, std::vector<const SetMember*>> groups;
    for (const auto* m : ms)
      if (!m->project.empty()) groups[{m->project, m->public_version}].push_back(m);
    v.members = 0;
    for (const auto& [key, group] : groups)
      if (group.size() > 1) {
        consistency(group, r, s);
        v.members += group.size();
      }
  }
  if (baseline) {
    v.baseline_matched = sizes(ms, *baseline, r, s);
    // WC710-WC716: each wheel against its counterpart (pairing_key: a raised floor still pairs).
    std::map<std::string, const SetMember*> before;
    for (const auto& b : *baseline) before.emplace(pairing_key(b), &b);
    std::set<std::string> needed;
    collect_needed(*baseline, needed);
    collect_needed(wheels, needed);
    for (const auto* m : ms)
      if (auto it = before.find(pairing_key(*m)); it != before.end())
        pair_regressions(compare_members(*it->second, *m), p, needed, s);
    matrix_regressions(ms, *baseline, s);
  }
  v.findings = s.take();
  v.waived = s.take_waived();
  std::stable_sort(v.findings.begin(), v.findings.end(),
                   [](const Finding& a, const Finding& b) { return a.rule < b.rule; });
  return v;
}

unsigned shard_of(const std::string& target, unsigned count) {
  // FNV-1a of the file name: stable across runs, machines and input order.
  std::string name = target;
  auto slash = name.find_last_of('/');
  if (slash != std::string::npos) name = name.substr(slash + 1);
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : name) h = (h ^ c) * 1099511628211ull;
  return count ? static_cast<unsigned>(h % count) : 0;
}

std::string targets_digest(const std::vector<std::string>& targets) {
  std::vector<std::string> names;
  for (const auto& t : targets) {
    auto slash = t.find_last_of('/');
    names.push_back(slash == std::string::npos ? t : t.substr(slash + 1));
  }
  std::sort(names.begin(), names.end());
  uint64_t h = 1469598103934665603ull;
  for (const auto& n : names) {
    for (unsigned char c : n) h = (h ^ c) * 1099511628211ull;
    h = (h ^ 0xff) * 1099511628211ull;
  }
  char buf[20];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace wc
