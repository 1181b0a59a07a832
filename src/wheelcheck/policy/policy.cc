#include "policy/policy.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "policy/json_locate.h"
#include "policy/schema_check.h"
#include "rules/catalog.h"

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

const char* severity_name(Severity s) {
  switch (s) {
    case Severity::off: return "off";
    case Severity::warning: return "warning";
    case Severity::error: return "error";
  }
  return "off";
}

std::optional<Severity> parse_severity(std::string_view s) {
  if (s == "off") return Severity::off;
  if (s == "warning") return Severity::warning;
  if (s == "error") return Severity::error;
  return std::nullopt;
}

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
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    std::string msg = e.what();
    auto p = msg.find("]: ");  // drop nlohmann's "[json.exception.parse_error.101] " prefix
    issues.push_back({"", line_of_byte(text, e.byte ? e.byte - 1 : 0),
                      "not valid JSON: " + (p == std::string::npos ? msg : msg.substr(p + 3))});
    return std::nullopt;
  }
  auto lines = json_pointer_lines(text);
  auto line = [&](const std::string& ptr) {
    auto it = lines.find(ptr);
    return it == lines.end() ? 0 : it->second;
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
  if (!issues.empty()) return std::nullopt;
  return doc;
}

std::vector<std::string> extends_of(const json& doc) {
  std::vector<std::string> out;
  if (!doc.contains("extends")) return out;
  if (doc["extends"].is_string()) out.push_back(doc["extends"]);
  else for (const auto& e : doc["extends"]) out.push_back(e);
  return out;
}

// Objects merge key by key, `forbid` lists concatenate, everything else: the later value wins.
void merge_into(json& base, const json& over) {
  for (const auto& [k, v] : over.items()) {
    if (k == "extends" || k == "$schema") continue;
    if (k == "forbid" && base.contains(k) && base[k].is_array()) {
      for (const auto& x : v)
        if (std::find(base[k].begin(), base[k].end(), x) == base[k].end()) base[k].push_back(x);
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
  fs::path dir;       // for relative extends; empty for shipped
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
  if (const std::string* t = shipped_policy_text(spec)) return Resolved{spec, *t, {}};
  return std::nullopt;
}

void load_into(const std::string& spec, const fs::path& rel_dir, json& merged, std::vector<std::string>& chain,
               std::vector<std::string>& sources) {
  auto r = resolve(spec, rel_dir);
  if (!r) {
    std::string names;
    for (const auto& n : shipped_policy_names()) names += (names.empty() ? "" : ", ") + n;
    throw PolicyError(spec, {{"", 0, "no such policy file, and no shipped policy of that name (shipped: " + names + ")"}});
  }
  if (std::find(chain.begin(), chain.end(), r->label) != chain.end())
    throw PolicyError(r->label, {{"/extends", 0, "extends cycle: " + r->label + " extends itself through " + chain.back()}});
  std::vector<PolicyIssue> issues;
  auto doc = parse_checked(r->text, issues);
  if (!doc) throw PolicyError(r->label, issues);
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
        issues.push_back({ptr, lines.count(ptr) ? lines[ptr] : 0, "extends '" + base + "', which is neither a shipped policy nor an existing file"});
      }
    }
  }
  return issues;
}

Policy load_policy(const std::string& spec) {
  json merged = json::object();
  std::vector<std::string> chain;
  Policy p;
  // Every policy sits on `default` (the standards), unless it is default itself.
  if (spec != "default") load_into("default", {}, merged, chain, p.sources);
  load_into(spec, {}, merged, chain, p.sources);
  p.merged = merged;
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
  }
  if (merged.contains("forbid")) {
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
  }
  return p;
}

}  // namespace wc
