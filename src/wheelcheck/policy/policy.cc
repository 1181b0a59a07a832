#include "policy/policy.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "catalog/catalog.h"
#include "policy/json_locate.h"
#include "policy/schema_check.h"
#include "util/json_text.h"
#include "util/parse.h"
#include "util/strings.h"

namespace wc {

using nlohmann::json;
namespace fs = std::filesystem;

// Generated at build time from policies/*.json (cmake/embed_policies.cmake).
struct EmbeddedPolicy {
  const char* name;
  const char* text;
};
extern const EmbeddedPolicy kEmbeddedPolicies[];
extern const size_t kEmbeddedPolicyCount;
extern const char* const kPolicySchema;

static std::string format_issues(const std::string& file, const std::vector<PolicyIssue>& issues) {
  std::string s;
  for (const auto& i : issues) {
    if (!s.empty()) s += "\n";
    s += file + (i.line ? ":" + std::to_string(i.line) : "") + ": " + (i.pointer.empty() ? "(document)" : i.pointer) +
         ": " + i.message;
  }
  return s;
}

PolicyError::PolicyError(std::string file, std::vector<PolicyIssue> issues)
    : std::runtime_error(format_issues(file, issues)), file_(std::move(file)), issues_(std::move(issues)) {}

Severity Policy::severity_of(const std::string& rule, Severity fallback) const {
  auto it = severity.find(rule);
  return it == severity.end() ? fallback : it->second;
}

std::vector<std::string> shipped_policy_names() {
  std::vector<std::string> v;
  for (size_t i = 0; i < kEmbeddedPolicyCount; ++i) v.emplace_back(kEmbeddedPolicies[i].name);
  return v;
}

const std::string* shipped_policy_text(const std::string& name) {
  static const std::map<std::string, std::string> texts = [] {
    std::map<std::string, std::string> m;
    for (size_t i = 0; i < kEmbeddedPolicyCount; ++i) m[kEmbeddedPolicies[i].name] = kEmbeddedPolicies[i].text;
    return m;
  }();
  auto it = texts.find(name);
  return it == texts.end() ? nullptr : &it->second;
}

std::vector<std::string> policy_search_dirs() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("WHEELCHECK_POLICY_PATH"))
    for (const auto& d : split(env, ':'))
      if (!d.empty()) dirs.emplace_back(d);
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path share = exe.parent_path().parent_path() / "share" / "wheelcheck" / "policies";
    if (fs::is_directory(share, ec)) dirs.push_back(share.string());
  }
  return dirs;
}

std::vector<std::pair<std::string, std::string>> installed_policies() {
  std::vector<std::pair<std::string, std::string>> out;
  std::set<std::string> seen;
  for (const auto& d : policy_search_dirs()) {
    std::error_code ec;
    for (auto it = fs::directory_iterator(d, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
      if (it->path().extension() != ".json") continue;
      std::string name = it->path().stem().string();
      if (name == "policy.schema" || shipped_policy_text(name) || !seen.insert(name).second) continue;
      out.emplace_back(name, it->path().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

const std::string& policy_schema_text() {
  static const std::string s = kPolicySchema;
  return s;
}

namespace {

int line_of_byte(const std::string& text, size_t byte) {
  byte = std::min(byte, text.size());
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(byte), '\n'));
}

// Parses and checks one document; issues carry pointer and line.
std::optional<json> parse_checked(const std::string& text, std::vector<PolicyIssue>& issues) {
  JsonError err;
  auto parsed = parse_json(text, &err);
  if (!parsed) {
    issues.push_back({"", line_of_byte(text, err.byte ? err.byte - 1 : 0), "not valid JSON: " + err.message});
    return std::nullopt;
  }
  json doc = std::move(*parsed);
  std::optional<std::map<std::string, int>> lines;  // found only for a policy with something to say
  auto line = [&](const std::string& ptr) {
    if (!lines) lines = json_pointer_lines(text);
    auto it = lines->find(ptr);
    return it == lines->end() ? 0 : it->second;
  };
  static const json schema = json::parse(kPolicySchema);
  for (const auto& si : schema_validate(doc, schema)) issues.push_back({si.pointer, line(si.pointer), si.message});
  if (doc.is_object() && doc.contains("rules") && doc["rules"].is_object()) {
    for (const auto& [id, _] : doc["rules"].items())
      if (!find_rule(id)) {
        std::string ptr = "/rules/" + json_pointer_escape(id);
        issues.push_back({ptr, line(ptr), "unknown rule ID '" + id + "' (see `wheelcheck rules`)"});
      }
  }
  // What the schema cannot say: patterns RE2 must compile.
  if (doc.is_object() && doc.contains("cuda") && doc["cuda"].is_object() && doc["cuda"].contains("version_file") &&
      doc["cuda"]["version_file"].is_object() && doc["cuda"]["version_file"].contains("regex") &&
      doc["cuda"]["version_file"]["regex"].is_string()) {
    std::string err;
    if (!Pattern::compile(doc["cuda"]["version_file"]["regex"].get<std::string>(), true, &err)) {
      std::string ptr = "/cuda/version_file/regex";
      issues.push_back({ptr, line(ptr), "not a regular expression RE2 accepts: " + err});
    }
  }
  if (doc.is_object() && doc.contains("variant") && doc["variant"].is_object() &&
      doc["variant"].contains("catalogue") && doc["variant"]["catalogue"].is_object())
    for (const auto& [ns, features] : doc["variant"]["catalogue"].items())
      if (features.is_object())
        for (const auto& [name, f] : features.items())
          for (const char* key : {"pattern", "offered"})
            if (f.is_object() && f.contains(key) && f[key].is_string()) {
              std::string err;
              if (!Pattern::compile(f[key].get<std::string>(), false, &err)) {
                std::string ptr = "/variant/catalogue/" + ns + "/" + name + "/" + key;
                issues.push_back({ptr, line(ptr), "not a regular expression RE2 accepts: " + err});
              }
            }
  // A publisher must name who it is: a kind alone would accept any repository or account.
  if (doc.is_object() && doc.contains("provenance") && doc["provenance"].is_object() &&
      doc["provenance"].contains("publisher") && doc["provenance"]["publisher"].is_object()) {
    const json& pub = doc["provenance"]["publisher"];
    const std::string kind = pub.contains("kind") && pub["kind"].is_string() ? pub["kind"].get<std::string>() : "";
    static const std::map<std::string, std::vector<const char*>> needs = {{"github", {"repository"}},
                                                                          {"gitlab", {"repository"}},
                                                                          {"google", {"email"}},
                                                                          {"circleci", {"project_id"}},
                                                                          {"identity", {"identity", "issuer"}}};
    auto it = needs.find(kind);
    if (it != needs.end())
      for (const char* key : it->second)
        if (!pub.contains(key) || !pub[key].is_string() || pub[key].get<std::string>().empty()) {
          std::string ptr = "/provenance/publisher";
          issues.push_back(
              {ptr, line(ptr),
               "a " + kind + " publisher must name its " + key + ": without it any " + kind + " signer would match"});
        }
  }
  if (!issues.empty()) return std::nullopt;
  return doc;
}

std::vector<std::string> extends_of(const json& doc) {
  std::vector<std::string> out;
  if (!doc.contains("extends")) return out;
  if (doc["extends"].is_string())
    out.push_back(doc["extends"]);
  else
    for (const auto& e : doc["extends"]) out.push_back(e);
  return out;
}

// Objects merge key by key, `forbid` lists concatenate, everything else: the later value wins. A
// `forbid` rule of the extending policy with a glob the base already has replaces the base's rule
// in place (strict's error for **/__pycache__/** overrides default's warning: the first matching
// pattern decides, so an appended duplicate would never be reached).
void merge_into(json& base, const json& over) {
  for (const auto& [k, v] : over.items()) {
    if (k == "extends" || k == "$schema") continue;
    if (k == "forbid" && base.contains(k) && base[k].is_array()) {
      for (const auto& x : v) {
        auto same_glob = std::find_if(base[k].begin(), base[k].end(), [&](const json& b) {
          return b.is_object() && x.is_object() && b.contains("glob") && x.contains("glob") && b["glob"] == x["glob"];
        });
        if (same_glob != base[k].end())
          *same_glob = x;
        else if (std::find(base[k].begin(), base[k].end(), x) == base[k].end())
          base[k].push_back(x);
      }
    } else if (v.is_object() && base.contains(k) && base[k].is_object()) {
      merge_into(base[k], v);
    } else {
      base[k] = v;
    }
  }
}

struct Resolved {
  std::string label;  // file path or shipped name
  std::string text;
  fs::path dir;  // for relative extends; empty for shipped
  bool shipped = false;
};

std::optional<Resolved> resolve(const std::string& spec, const fs::path& rel_dir) {
  std::error_code ec;
  for (fs::path p : {rel_dir.empty() ? fs::path(spec) : rel_dir / spec, fs::path(spec)}) {
    if (fs::is_regular_file(p, ec)) {
      std::ifstream in(p, std::ios::binary);
      std::stringstream ss;
      ss << in.rdbuf();
      return Resolved{p.string(), ss.str(), p.parent_path()};
    }
  }
  if (const std::string* t = shipped_policy_text(spec)) return Resolved{spec, *t, {}, true};
  if (spec.find('/') == std::string::npos && !spec.ends_with(".json"))  // a name: the installed policies
    for (const auto& d : policy_search_dirs()) {
      fs::path p = fs::path(d) / (spec + ".json");
      if (!fs::is_regular_file(p, ec)) continue;
      std::ifstream in(p, std::ios::binary);
      std::stringstream ss;
      ss << in.rdbuf();
      return Resolved{p.string(), ss.str(), p.parent_path()};
    }
  return std::nullopt;
}

void load_into(const std::string& spec, const fs::path& rel_dir, json& merged, std::vector<std::string>& chain,
               std::vector<std::string>& sources) {
  auto r = resolve(spec, rel_dir);
  if (!r) {
    // The shipped names, the nearest to what was typed first.
    auto ordered = nearest_first(spec, shipped_policy_names());
    std::string names = join(ordered, ", ");
    std::string hint = !ordered.empty() && edit_distance(spec, ordered.front()) <= 2
                           ? " (did you mean '" + ordered.front() + "'?)"
                           : "";
    throw PolicyError(spec, {{"", 0,
                              "no such policy file, and no shipped policy of that name" + hint +
                                  "; shipped, nearest first: " + names}});
  }
  if (std::find(chain.begin(), chain.end(), r->label) != chain.end())
    throw PolicyError(r->label,
                      {{"/extends", 0, "extends cycle: " + r->label + " extends itself through " + chain.back()}});
  // Each file is merged once, where it is first reached: a diamond of extends (32 levels of two
  // bases each naming the same two) costs one load per file, not one per path.
  // The policy asked for itself (an empty chain) is always merged last, over what came before.
  if (!chain.empty() && std::find(sources.begin(), sources.end(), r->label) != sources.end()) return;
  std::vector<PolicyIssue> issues;
  // A shipped policy is compiled in, and the tests hold each to every check a policy file meets
  // (Policy.ShippedPoliciesPassEveryCheckAPolicyFileMeets): it is parsed, not checked again on each
  // run. Parsing the schema and checking default's chain against it was 46% of the instructions of
  // a check of one small wheel (MarkupSafe 3.0.2).
  auto doc = r->shipped ? parse_json(r->text) : parse_checked(r->text, issues);
  if (!doc) throw PolicyError(r->label, issues);
  // A relative trust root is the declaring file's neighbour, whichever policy extends that file.
  if (!r->dir.empty() && doc->contains("provenance") && (*doc)["provenance"].contains("trusted_root")) {
    json& tr = (*doc)["provenance"]["trusted_root"];
    if (fs::path(tr.get<std::string>()).is_relative())
      tr = fs::absolute(r->dir / tr.get<std::string>()).lexically_normal().string();
  }
  chain.push_back(r->label);
  for (const auto& base : extends_of(*doc)) load_into(base, r->dir, merged, chain, sources);
  chain.pop_back();
  merge_into(merged, *doc);
  sources.push_back(r->label);
}

template <typename T>
void take(const json& obj, const char* key, T& out) {
  if (obj.contains(key)) out = obj[key].get<T>();
}

// Dotted numbers ("12.10" > "12.9"); the policy tables are ours, so no error path is needed.
int compare_dotted_text(const std::string& a, const std::string& b) {
  auto pa = split(a, '.'), pb = split(b, '.');
  for (size_t i = 0; i < std::max(pa.size(), pb.size()); ++i) {
    uint64_t x = i < pa.size() ? parse_decimal(pa[i], UINT32_MAX).value_or(0) : 0;
    uint64_t y = i < pb.size() ? parse_decimal(pb[i], UINT32_MAX).value_or(0) : 0;
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

}  // namespace

std::vector<PolicyIssue> validate_policy_text(const std::string& text, const std::string& file) {
  std::vector<PolicyIssue> issues;
  auto doc = parse_checked(text, issues);
  if (doc) {
    auto lines = json_pointer_lines(text);
    const auto bases = extends_of(*doc);
    for (size_t i = 0; i < bases.size(); ++i) {
      const auto& base = bases[i];
      fs::path rel = fs::path(file).parent_path() / base;
      if (!shipped_policy_text(base) && !fs::exists(rel) && !fs::exists(base)) {
        std::string ptr = doc->at("extends").is_string() ? "/extends" : "/extends/" + std::to_string(i);
        issues.push_back({ptr, lines.count(ptr) ? lines[ptr] : 0,
                          "extends '" + base + "', which is neither a shipped policy nor an existing file"});
      }
    }
  }
  return issues;
}

namespace {

std::vector<std::string> strings(const json& obj, const char* key) {
  std::vector<std::string> out;
  if (obj.contains(key))
    for (const auto& v : obj[key]) out.push_back(v.get<std::string>());
  return out;
}

std::set<int> ints(const json& obj, const char* key) {
  std::set<int> out;
  if (obj.contains(key))
    for (const auto& v : obj[key]) out.insert(v.get<int>());
  return out;
}

// "2_17" -> (2, 17); the schema guarantees the shape.
std::pair<int, int> level_key(const std::string& key) {
  auto us = key.find('_');
  return {parse_small(std::string_view(key).substr(0, us)).value_or(0),
          parse_small(std::string_view(key).substr(us + 1)).value_or(0)};
}

std::vector<LinuxLevel> linux_levels(const json& levels, std::vector<std::string> libraries) {
  std::vector<LinuxLevel> out;
  for (const auto& [key, v] : levels.items()) {
    LinuxLevel l;
    std::tie(l.major, l.minor) = level_key(key);
    for (const auto& a : strings(v, "arches")) l.arches.insert(a);
    take(v, "symbols", l.symbols);
    take(v, "arch_symbols", l.arch_symbols);
    l.libraries = strings(v, "extra_libraries");
    take(v, "blacklist", l.blacklist);
    out.push_back(std::move(l));
  }
  std::sort(out.begin(), out.end(), [](const LinuxLevel& a, const LinuxLevel& b) {
    return std::tie(a.major, a.minor) < std::tie(b.major, b.minor);
  });
  for (auto& l : out) {  // whitelists grow level by level (PEP 600 levels only ever add libraries)
    libraries.insert(libraries.end(), l.libraries.begin(), l.libraries.end());
    l.libraries = libraries;
  }
  return out;
}

void parse_linux(const json& lx, LinuxPolicy& out) {
  out.allowed_libraries = strings(lx, "allowed_libraries");
  out.versioned_libraries = strings(lx, "versioned_libraries");
  take(lx, "runtimes", out.runtimes);
  if (lx.contains("interpreter_symbols")) {
    const auto& t = lx["interpreter_symbols"];
    take(t, "source", out.interpreter_symbols_source);
    for (const auto& n : strings(t, "names")) out.interpreter_symbols.insert(n);
  }
  take(lx, "x86_64_isa_baseline", out.x86_64_isa_baseline);
  if (lx.contains("manylinux_levels"))
    out.manylinux = linux_levels(lx["manylinux_levels"], strings(lx, "manylinux_libraries"));
  if (lx.contains("musllinux_levels"))
    out.musllinux = linux_levels(lx["musllinux_levels"], strings(lx, "musllinux_libraries"));
}

void parse_cuda(const json& c, CudaPolicy& out) {
  if (c.contains("variant")) out.variant = c["variant"].get<std::string>();
  if (c.contains("variants"))
    for (const auto& [name, v] : c["variants"].items()) {
      CudaVariantInfo info;
      info.name = name;
      std::string tk = v["toolkit"];
      auto dot = tk.find('.');
      info.major = parse_small(std::string_view(tk).substr(0, dot)).value_or(0);
      info.minor = parse_small(std::string_view(tk).substr(dot + 1)).value_or(0);
      info.sm = ints(v, "sm");
      info.arch_specific = ints(v, "arch_specific");
      info.family = ints(v, "family");
      take(v, "max_ptx_isa", info.max_ptx_isa);
      out.variants[name] = std::move(info);
    }
  if (c.contains("runtime_sonames"))
    for (const auto& [major, names] : c["runtime_sonames"].items())
      for (const auto& n : names) out.runtime_sonames[n.get<std::string>()] = parse_small(major).value_or(0);
  for (const auto& p : strings(c, "toolkit_versioned_packages")) out.toolkit_versioned_packages.insert(p);
  out.driver_libraries = strings(c, "driver_libraries");
  take(c, "allow_arch_specific", out.allow_arch_specific);
  std::string scope = c.value("require_scope", "wheel");
  out.require_scope = scope == "binary"      ? RequireScope::binary
                      : scope == "container" ? RequireScope::container
                                             : RequireScope::wheel;
  if (c.contains("require"))
    for (const auto& [key, r] : c["require"].items()) out.require[key] = {strings(r, "sass"), strings(r, "ptx")};
  out.expect_from_dependencies = strings(c, "expect_from_dependencies");
  if (c.contains("version_file")) {
    CudaPolicy::VersionFile vf;
    vf.path = c["version_file"]["path"];
    vf.regex_text = c["version_file"]["regex"];
    if (auto re = Pattern::compile(vf.regex_text, true, nullptr))
      vf.regex = std::make_shared<const Pattern>(std::move(*re));
    out.version_file = std::move(vf);
  }
  take(c, "providers", out.providers);
  take(c, "import_loaded", out.import_loaded);
  take(c, "import_globals", out.import_globals);
  take(c, "ptx_isa_min_cuda", out.ptx_isa_min_cuda);
  if (c.contains("ga_drivers"))
    for (const auto& [cuda, driver] : c["ga_drivers"].items())
      out.ga_drivers.emplace_back(cuda, driver.get<std::string>());
  std::sort(out.ga_drivers.begin(), out.ga_drivers.end(),
            [](const auto& a, const auto& b) { return compare_dotted_text(a.first, b.first) < 0; });
  if (c.contains("runtime_driver_floor"))
    for (const auto& [major, driver] : c["runtime_driver_floor"].items())
      out.runtime_driver_floor[parse_small(major).value_or(0)] = driver;
  take(c, "gpus", out.gpus);
}

std::string source_name(const json& src) {
  return src.value("package", std::string()) + " " + src.value("version", std::string());
}

void parse_metadata(const json& m, MetadataPolicy& out) {
  if (m.contains("spdx")) {
    const auto& t = m["spdx"];
    take(t, "list_version", out.spdx_list_version);
    out.spdx_source = source_name(t["source"]);
    for (const auto& id : strings(t, "licenses")) out.spdx_licenses.emplace(to_lower(id), id);
    for (const auto& id : strings(t, "exceptions")) out.spdx_exceptions.emplace(to_lower(id), id);
    for (const char* key : {"deprecated_licenses", "deprecated_exceptions"})
      for (const auto& id : strings(t, key)) out.spdx_deprecated.insert(id);
  }
  if (m.contains("classifiers")) {
    const auto& t = m["classifiers"];
    out.classifiers_source = source_name(t["source"]);
    for (const auto& c : strings(t, "classifiers")) out.classifiers.insert(c);
    if (t.contains("deprecated"))
      for (const auto& [c, by] : t["deprecated"].items())
        out.deprecated_classifiers[c] = by.get<std::vector<std::string>>();
  }
}

void parse_abi(const json& a, AbiPolicy& out) {
  if (a.contains("torch_stable_abi")) {
    const auto& t = a["torch_stable_abi"];
    take(t, "source", out.torch_shims_source);
    take(t, "shims", out.torch_shims);
    take(t, "removed", out.torch_shims_removed);
  }
  if (a.contains("stable_abi")) {
    const auto& t = a["stable_abi"];
    take(t, "source", out.stable_abi_source);
    for (const auto& [name, added] : t["symbols"].items()) out.stable_abi.emplace(name, added.get<std::string>());
    take(t, "conditional", out.conditional);
  }
  if (a.contains("waive_symbols"))
    for (const auto& w : a["waive_symbols"])
      out.waive_symbols.push_back({w["symbol"], w.value("path", ""), w["reason"]});
  if (a.contains("cxx11")) {
    const auto& c = a["cxx11"];
    AbiPolicy::Cxx11 x;
    x.namespaces = strings(c, "namespaces");
    x.libraries = strings(c, "libraries");
    take(c, "min_cxx11_symbols", x.min_cxx11_symbols);
    out.cxx11 = std::move(x);
  }
}

void parse_variant(const json& v, VariantPolicy& out) {
  if (v.contains("coverage")) out.coverage_every = v["coverage"] == "every";
  if (!v.contains("catalogue")) return;
  for (const auto& [ns, features] : v["catalogue"].items())
    for (const auto& [name, f] : features.items()) {
      VariantFeatureRule r;
      take(f, "pattern", r.pattern_text);
      take(f, "offered", r.offered_text);
      take(f, "offered_reason", r.offered_reason);
      take(f, "multi_value", r.multi_value);
      take(f, "min", r.min);
      take(f, "max", r.max);
      if (!r.pattern_text.empty())
        if (auto re = Pattern::compile(r.pattern_text, false, nullptr))
          r.pattern = std::make_shared<const Pattern>(std::move(*re));
      if (!r.offered_text.empty())
        if (auto re = Pattern::compile(r.offered_text, false, nullptr))
          r.offered = std::make_shared<const Pattern>(std::move(*re));
      out.catalogue[ns][name] = std::move(r);
    }
}

void parse_release(const json& r, ReleasePolicy& out) {
  take(r, "consistency", out.consistency);
  take(r, "max_nightly_age_days", out.max_nightly_age_days);
  if (r.contains("variant_follows"))
    for (const auto& [leader, followers] : r["variant_follows"].items())
      for (const auto& f : followers) out.variant_follows[leader].push_back(f);
  // A matrix is declared by anything but these, which hold for whatever the run holds.
  out.defined =
      r.is_object() && std::any_of(r.items().begin(), r.items().end(), [](const auto& kv) {
        return kv.key() != "consistency" && kv.key() != "variant_follows" && kv.key() != "max_nightly_age_days";
      });
  if (!out.defined) return;
  take(r, "project", out.project);
  take(r, "version", out.version);
  out.python = strings(r, "python");
  out.platforms = strings(r, "platforms");
  out.variants = strings(r, "variants");
  if (r.contains("exceptions"))
    for (const auto& e : r["exceptions"]) {
      MatrixException x;
      take(e, "python", x.python);
      take(e, "platform", x.platform);
      take(e, "variant", x.variant);
      take(e, "reason", x.reason);
      out.exceptions.push_back(std::move(x));
    }
  take(r, "max_growth_ratio", out.max_growth_ratio);
  take(r, "min_entry_bytes_reported", out.min_entry_bytes_reported);
  if (r.contains("consistent_fields")) out.consistent_fields = strings(r, "consistent_fields");
}

// The merged document (already checked against the schema) into the typed sections.
void parse_typed(const json& merged, Policy& p) {
  take(merged, "name", p.name);
  take(merged, "description", p.description);
  if (merged.contains("rules"))
    for (const auto& [id, sev] : merged["rules"].items()) p.severity[id] = *parse_severity(sev.get<std::string>());
  if (merged.contains("limits")) {
    const auto& l = merged["limits"];
    take(l, "max_compression_ratio", p.limits.max_compression_ratio);
    take(l, "ratio_min_entry_bytes", p.limits.ratio_min_entry_bytes);
    take(l, "max_total_uncompressed_bytes", p.limits.max_total_uncompressed_bytes);
    take(l, "max_entries", p.limits.max_entries);
    take(l, "max_wheel_bytes", p.limits.max_wheel_bytes);
    take(l, "max_path_length", p.limits.max_path_length);
    take(l, "max_metadata_bytes", p.limits.max_metadata_bytes);
    take(l, "max_analysis_bytes", p.limits.max_analysis_bytes);
  }
  if (merged.contains("forbid"))
    for (const auto& f : merged["forbid"]) {
      ForbidRule r;
      if (f.is_string()) {
        r.glob = f;
      } else {
        r.glob = f["glob"];
        if (f.contains("severity")) r.severity = *parse_severity(f["severity"].get<std::string>());
        take(f, "reason", r.reason);
      }
      p.forbid.push_back(std::move(r));
    }
  if (merged.contains("waive"))
    for (const auto& w : merged["waive"]) p.waivers.push_back({w["rule"], w.value("path", ""), w.value("reason", "")});
  if (merged.contains("linux")) parse_linux(merged["linux"], p.linux);
  if (merged.contains("macos")) {
    p.macos.system_prefixes = strings(merged["macos"], "system_prefixes");
    p.macos.ios_host_provided = strings(merged["macos"], "ios_host_provided");
  }
  if (merged.contains("pypi_platforms")) {
    const json& t = merged["pypi_platforms"];
    auto set_of = [&](const char* key) {
      auto v = strings(t, key);
      return std::set<std::string>(v.begin(), v.end());
    };
    take(t, "source", p.pypi_platforms.source);
    p.pypi_platforms.static_tags = set_of("static");
    p.pypi_platforms.macosx_arches = set_of("macosx_arches");
    p.pypi_platforms.macosx_major_versions = set_of("macosx_major_versions");
    p.pypi_platforms.ios_arches = set_of("ios_arches");
    p.pypi_platforms.android_arches = set_of("android_arches");
    p.pypi_platforms.manylinux_arches = set_of("manylinux_arches");
    p.pypi_platforms.musllinux_arches = set_of("musllinux_arches");
    if (t.contains("regexes"))
      for (const auto& [family, re] : t["regexes"].items()) p.pypi_platforms.regexes[family] = re.get<std::string>();
  }
  if (merged.contains("abi")) parse_abi(merged["abi"], p.abi);
  if (merged.contains("metadata")) parse_metadata(merged["metadata"], p.metadata);
  if (merged.contains("variant")) parse_variant(merged["variant"], p.variant);
  if (merged.contains("sbom")) {
    take(merged["sbom"], "require", p.sbom.require);
    take(merged["sbom"], "require_coverage", p.sbom.require_coverage);
    take(merged["sbom"], "forbid_random_serial", p.sbom.forbid_random_serial);
  }
  if (merged.contains("sdist")) take(merged["sdist"], "require_static_metadata", p.sdist.require_static_metadata);
  if (merged.contains("provenance")) {
    const json& v = merged["provenance"];
    take(v, "require", p.provenance.require);
    take(v, "trusted_root", p.provenance.trusted_root);
    take(v, "max_root_age_days", p.provenance.max_root_age_days);
    if (v.contains("publisher")) {
      const json& pub = v["publisher"];
      auto& out = p.provenance.publisher;
      for (auto [key, field] : {std::pair{"kind", &out.kind},
                                {"repository", &out.repository},
                                {"workflow", &out.workflow},
                                {"environment", &out.environment},
                                {"signer_workflow", &out.signer_workflow},
                                {"ref", &out.ref},
                                {"email", &out.email},
                                {"project_id", &out.project_id},
                                {"pipeline_definition_id", &out.pipeline_definition_id},
                                {"vcs_origin", &out.repository},
                                {"vcs_ref", &out.ref},
                                {"identity", &out.identity},
                                {"issuer", &out.issuer}})
        take(pub, key, *field);
    }
  }
  if (merged.contains("cuda")) parse_cuda(merged["cuda"], p.cuda);
  if (merged.contains("release")) parse_release(merged["release"], p.release);
  if (merged.contains("baseline")) {
    const json& b = merged["baseline"];
    take(b, "max_growth_ratio", p.release.max_growth_ratio);  // release.max_growth_ratio is its alias
    if (b.contains("public_libraries")) p.baseline.public_libraries = strings(b, "public_libraries");
    if (b.contains("allow"))
      for (const auto& a : b["allow"]) {
        BaselinePolicy::Allow x;
        take(a, "rule", x.rule);
        take(a, "binary", x.binary);
        take(a, "arch", x.arch);
        take(a, "reason", x.reason);
        p.baseline.allow.push_back(std::move(x));
      }
  }
}

}  // namespace

std::string LinuxLevel::ceiling(const std::string& arch, const std::string& prefix) const {
  auto a = arch_symbols.find(arch);
  if (a != arch_symbols.end()) {
    auto it = a->second.find(prefix);
    if (it != a->second.end()) return it->second;
  }
  auto it = symbols.find(prefix);
  return it == symbols.end() ? "" : it->second;
}

Policy load_policy(const std::string& spec) {
  json merged = json::object();
  std::vector<std::string> chain;
  Policy p;
  // Every policy sits on `default` (the standards), unless it is default itself.
  if (spec != "default") load_into("default", {}, merged, chain, p.sources);
  load_into(spec, {}, merged, chain, p.sources);
  parse_typed(merged, p);
  p.document = std::move(merged);
  std::error_code ec;
  p.spec =
      fs::is_regular_file(spec, ec) ? fs::absolute(spec, ec).string() : spec;  // a file, or a name found again by name
  return p;
}

Policy load_policy_document(const nlohmann::json& doc, const std::string& label, const std::string& dir) {
  std::vector<PolicyIssue> issues;
  auto checked = parse_checked(doc.dump(), issues);
  if (!checked) throw PolicyError(label, issues);
  json merged = json::object();
  std::vector<std::string> chain{label};
  Policy p;
  load_into("default", {}, merged, chain, p.sources);
  for (const auto& base : extends_of(*checked))
    if (base != "default") load_into(base, dir, merged, chain, p.sources);
  merge_into(merged, *checked);
  p.sources.push_back(label);
  parse_typed(merged, p);
  p.document = std::move(merged);
  p.spec = label;
  return p;
}

std::vector<std::string> CudaPolicy::provided_by(const std::string& project) const {
  std::vector<std::string> out;
  for (const auto& [key, globs] : providers)
    if (key == project || (key.starts_with(project + "[") && key.ends_with("]")))
      out.insert(out.end(), globs.begin(), globs.end());
  return out;
}

}  // namespace wc
