#include "wheel/variant.h"

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

#include "util/json_text.h"
#include "util/parse.h"
#include "util/strings.h"

namespace wc {
namespace {

using json = nlohmann::json;

bool all_of_chars(std::string_view s, bool dot) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [&](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || c == '_' || (dot && c == '.');
  });
}

struct Generation {
  VariantSchema schema;
  std::string_view suffix;  // of the URL
};

// The published schema URLs (variants-schema.wheelnext.dev); 0.2.0 has been published under the
// providers draft's number (9999) and under PEP 850's.
VariantSchema schema_of(std::string_view url) {
  static const Generation known[] = {{VariantSchema::v0_0_2, "/v0.0.2.json"},
                                     {VariantSchema::v0_0_3, "/v0.0.3.json"},
                                     {VariantSchema::pep825_0_1_0, "/peps/825/v0.1.0.json"},
                                     {VariantSchema::pep825_0_1_1, "/peps/825/v0.1.1.json"},
                                     {VariantSchema::providers_0_2_0, "/peps/850/v0.2.0.json"},
                                     {VariantSchema::providers_0_2_0, "/peps/9999/v0.2.0.json"}};
  const std::string_view host = "https://variants-schema.wheelnext.dev";
  if (url == host || url == std::string(host) + "/") return VariantSchema::wheelnext;
  if (!url.starts_with(host)) return VariantSchema::unknown;
  for (const auto& g : known)
    if (url.substr(host.size()) == g.suffix) return g.schema;
  return VariantSchema::unknown;
}

// "vX.Y.Z.json" at the end of a URL: X, or -1.
int url_major(std::string_view url) {
  auto v = url.rfind("/v");
  if (v == std::string_view::npos) return -1;
  auto dot = url.find('.', v);
  if (dot == std::string_view::npos) return -1;
  return parse_small(url.substr(v + 2, dot - v - 2), 999).value_or(-1);
}

class Checker {
 public:
  explicit Checker(VariantDocument& d) : d_(d) {}

  void run(const json& doc) {
    if (!doc.is_object()) return error("the document is not a JSON object");
    schema(doc);
    top_level_keys(doc);
    priorities(doc);
    providers(doc);
    statics(doc);
    variants(doc);
  }

 private:
  VariantDocument& d_;
  void error(std::string m) { d_.errors.push_back(std::move(m)); }
  void warning(std::string m) { d_.warnings.push_back(std::move(m)); }
  VariantSchema gen() const { return d_.schema; }
  bool pep825() const { return gen() == VariantSchema::pep825_0_1_0 || gen() == VariantSchema::pep825_0_1_1; }
  bool production() const {
    return gen() == VariantSchema::wheelnext || gen() == VariantSchema::v0_0_2 || gen() == VariantSchema::v0_0_3;
  }
  bool sorted_values() const { return pep825() || gen() == VariantSchema::providers_0_2_0; }

  void schema(const json& doc) {
    if (!doc.contains("$schema") || !doc["$schema"].is_string()) {
      error("no $schema: PEP 825 requires the schema URL, and installers treat a file without one as unsupported");
      return;
    }
    d_.schema_url = doc["$schema"].get<std::string>();
    d_.schema = schema_of(d_.schema_url);
    if (d_.schema == VariantSchema::unknown) {
      int major = url_major(d_.schema_url);
      error("$schema '" + clip_for_display(d_.schema_url, 120) + "' is " +
            (major > 0 ? "of major version " + std::to_string(major) + ", which this tool does not know"
                       : "not a published variant schema") +
            ": installers treat the wheel as unsupported");
      return;
    }
    warning(std::string("schema ") + variant_schema_name(d_.schema) +
            " is a 0.x draft (\"MUST NOT be used in production\"): installers may change how they read it");
  }

  void top_level_keys(const json& doc) {
    std::set<std::string> allowed = {"$schema", "default-priorities", "variants"};
    if (!pep825()) allowed.insert("providers");
    if (gen() == VariantSchema::v0_0_3) allowed.insert("static-properties");
    for (const auto& [k, v] : doc.items()) {
      if (allowed.count(k) || gen() == VariantSchema::unknown) continue;
      if (k == "providers" && pep825())
        error(std::string("'providers' is not part of schema ") + variant_schema_name(gen()) +
              " (it returns in the providers schema 0.2.0)");
      else if (k == "static-properties")
        error(std::string("a top-level 'static-properties' is not part of schema ") + variant_schema_name(gen()) +
              (gen() == VariantSchema::providers_0_2_0 ? " (it moved into each provider)" : ""));
      else if (production())
        warning("unknown key '" + clip_for_display(k, 60) + "'");
      else
        error("unknown key '" + clip_for_display(k, 60) + "' (the schema allows no other keys)");
    }
  }

  std::vector<std::string> string_list(const json& v, const std::string& where, bool tokens) {
    std::vector<std::string> out;
    if (!v.is_array()) {
      error(where + " is not a list");
      return out;
    }
    std::set<std::string> seen;
    for (const auto& x : v) {
      if (!x.is_string()) {
        error(where + " holds a non-string");
        continue;
      }
      std::string s = x.get<std::string>();
      if (tokens && !is_variant_name_token(s)) error(where + ": '" + clip_for_display(s, 60) + "' is not ^[a-z0-9_]+$");
      if (!seen.insert(s).second) error(where + ": '" + clip_for_display(s, 60) + "' appears twice");
      out.push_back(s);
    }
    return out;
  }

  void priorities(const json& doc) {
    if (!doc.contains("default-priorities") || !doc["default-priorities"].is_object()) {
      error("no 'default-priorities' object");
      return;
    }
    const json& p = doc["default-priorities"];
    if (!p.contains("namespace")) {
      error("default-priorities has no 'namespace' list");
    } else {
      d_.namespace_priority = string_list(p["namespace"], "default-priorities.namespace", true);
      if (d_.namespace_priority.empty()) error("default-priorities.namespace is empty");
    }
    bool removed = gen() == VariantSchema::pep825_0_1_1 || gen() == VariantSchema::providers_0_2_0;
    for (const auto& [k, v] : p.items()) {
      if (k == "namespace") continue;
      if (k != "feature" && k != "property") {
        error("default-priorities: unknown key '" + clip_for_display(k, 60) + "'");
        continue;
      }
      if (removed) {
        error(std::string("default-priorities.") + k + " was removed by schema 0.1.1 (only 'namespace' remains)");
        continue;
      }
      if (!v.is_object()) {
        error("default-priorities." + k + " is not an object");
        continue;
      }
      for (const auto& [ns, x] : v.items()) {
        if (k == "feature") {
          d_.feature_priority[ns] = string_list(x, "default-priorities.feature." + ns, true);
        } else if (x.is_object()) {
          for (const auto& [f, vals] : x.items())
            d_.property_priority[ns][f] = string_list(vals, "default-priorities.property." + ns + "." + f, false);
        } else {
          error("default-priorities.property." + ns + " is not an object");
        }
      }
    }
  }

  void providers(const json& doc) {
    bool required = !pep825() && gen() != VariantSchema::unknown;
    if (!doc.contains("providers")) {
      if (required) error(std::string("no 'providers': schema ") + variant_schema_name(gen()) + " requires them");
      return;
    }
    if (pep825()) return;  // reported as an unknown key
    const json& ps = doc["providers"];
    if (!ps.is_object()) return error("'providers' is not an object");
    std::set<std::string> allowed = {"requires", "plugin-api"};
    if (gen() != VariantSchema::providers_0_2_0) allowed.insert("enable-if");
    if (gen() != VariantSchema::wheelnext) allowed.insert("optional");
    if (gen() == VariantSchema::v0_0_2) allowed.insert("plugin-use");
    if (gen() == VariantSchema::v0_0_3) allowed.insert("install-time");
    if (gen() == VariantSchema::providers_0_2_0) allowed.insert("static-properties");
    for (const auto& [ns, p] : ps.items()) {
      std::string where = "providers." + ns;
      if (!is_variant_name_token(ns)) error(where + ": namespace is not ^[a-z0-9_]+$");
      d_.providers.push_back(ns);
      if (!p.is_object()) {
        error(where + " is not an object");
        continue;
      }
      for (const auto& [k, v] : p.items())
        if (!allowed.count(k))
          error(where + ": '" + clip_for_display(k, 40) + "' is not part of schema " + variant_schema_name(gen()) +
                (k == "enable-if" ? " (removed by 0.2.0)" : ""));
      bool needs_requires = true;
      if (p.contains("plugin-use") && p["plugin-use"] == "none") needs_requires = false;
      if (p.contains("install-time") && p["install-time"] == false) needs_requires = false;
      if (p.contains("static-properties")) needs_requires = false;
      if (p.contains("plugin-use") &&
          (!p["plugin-use"].is_string() || !std::set<std::string>{"none", "build", "all"}.count(p["plugin-use"])))
        error(where + ".plugin-use is not one of none, build, all");
      for (const char* b : {"optional", "install-time"})
        if (p.contains(b) && !p[b].is_boolean()) error(where + "." + b + " is not true or false");
      if (p.contains("requires"))
        string_list(p["requires"], where + ".requires", false);
      else if (needs_requires)
        error(where + " has no 'requires' (the packages that provide its plugin)");
      if (p.contains("plugin-api")) {
        const json& api = p["plugin-api"];
        std::string a = api.is_string() ? api.get<std::string>() : "";
        auto colon = a.find(':');
        auto dotted = [](std::string_view s) {
          s = trim(s);
          return !s.empty() &&
                 std::all_of(s.begin(), s.end(), [](char c) { return is_alnum(c) || c == '_' || c == '.'; });
        };
        if (!dotted(std::string_view(a).substr(0, colon)) ||
            (colon != std::string::npos && !dotted(std::string_view(a).substr(colon + 1))))
          error(where + ".plugin-api '" + clip_for_display(a, 80) + "' is not module(:object)");
      }
      if (p.contains("static-properties") && gen() == VariantSchema::providers_0_2_0)
        properties_into(p["static-properties"], where + ".static-properties", d_.static_properties[ns], false);
    }
    // v0.0.3 and 0.2.0: every namespace of the priorities has its provider, and the reverse
    // (abi_dependency is the one namespace without a provider).
    if (gen() == VariantSchema::v0_0_3 || gen() == VariantSchema::providers_0_2_0) {
      for (const auto& ns : d_.namespace_priority)
        if (ns != "abi_dependency" && std::find(d_.providers.begin(), d_.providers.end(), ns) == d_.providers.end())
          error("namespace '" + ns + "' has no entry in 'providers'");
      for (const auto& ns : d_.providers) {
        if (ns == "abi_dependency") error("'abi_dependency' must not have a provider");
        if (std::find(d_.namespace_priority.begin(), d_.namespace_priority.end(), ns) == d_.namespace_priority.end())
          error("provider '" + ns + "' is not in default-priorities.namespace");
      }
    }
  }

  void statics(const json& doc) {
    if (gen() != VariantSchema::v0_0_3 || !doc.contains("static-properties")) return;
    const json& s = doc["static-properties"];
    if (!s.is_object()) return error("'static-properties' is not an object");
    for (const auto& [ns, fs] : s.items())
      properties_into(fs, "static-properties." + ns, d_.static_properties[ns], false);
  }

  // feature -> values of one namespace.
  void properties_into(const json& fs, const std::string& where, std::map<std::string, std::vector<std::string>>& out,
                       bool non_empty) {
    if (!fs.is_object()) return error(where + " is not an object");
    for (const auto& [f, vals] : fs.items()) {
      std::string w = where + "." + f;
      if (!is_variant_name_token(f)) error(w + ": feature name is not ^[a-z0-9_]+$");
      auto values = string_list(vals, w, false);
      for (const auto& v : values)
        if (!is_variant_value(v)) error(w + ": value '" + clip_for_display(v, 40) + "' is not ^[a-z0-9_.]+$");
      if (non_empty && values.empty()) error(w + " has no value");
      if (sorted_values() && !std::is_sorted(values.begin(), values.end()))
        error(w + ": values are not sorted (schema " + std::string(variant_schema_name(gen())) +
              " stores them as a sorted set)");
      out[f] = std::move(values);
    }
  }

  void variants(const json& doc) {
    if (!doc.contains("variants") || !doc["variants"].is_object()) return error("no 'variants' object");
    for (const auto& [label, props] : doc["variants"].items()) {
      std::string where = "variants." + label;
      d_.labels_in_order.push_back(label);
      if (!is_variant_label(label)) error(where + ": label is not ^[0-9a-z_.]+$");
      VariantProperties& out = d_.variants[label];
      if (!props.is_object()) {
        error(where + " is not an object");
        continue;
      }
      for (const auto& [ns, fs] : props.items()) {
        if (!is_variant_name_token(ns))
          error(where + ": namespace '" + clip_for_display(ns, 40) + "' is not ^[a-z0-9_]+$");
        if (!d_.namespace_priority.empty() &&
            std::find(d_.namespace_priority.begin(), d_.namespace_priority.end(), ns) == d_.namespace_priority.end())
          error(where + ": namespace '" + clip_for_display(ns, 40) +
                "' is not in default-priorities.namespace (installers cannot order it)");
        properties_into(fs, where + "." + ns, out[ns], true);
      }
    }
  }
};

}  // namespace

const char* variant_schema_name(VariantSchema s) {
  switch (s) {
    case VariantSchema::wheelnext: return "wheelnext (unversioned, v0.0.2)";
    case VariantSchema::v0_0_2: return "v0.0.2";
    case VariantSchema::v0_0_3: return "v0.0.3";
    case VariantSchema::pep825_0_1_0: return "0.1.0";
    case VariantSchema::pep825_0_1_1: return "0.1.1";
    case VariantSchema::providers_0_2_0: return "0.2.0";
    case VariantSchema::unknown: return "unknown";
  }
  return "unknown";
}

bool is_variant_label(std::string_view s) { return all_of_chars(s, true); }
bool is_variant_name_token(std::string_view s) { return all_of_chars(s, false); }
bool is_variant_value(std::string_view s) { return all_of_chars(s, true); }

VariantDocument parse_variant_document(std::string_view text) {
  VariantDocument d;
  // Depth-limited: a variant.json nested a million levels deep is an error, not a stack overflow
  // (nlohmann copies and destroys values recursively).
  JsonError why;
  std::optional<json> doc = parse_json(text, &why, 32);
  if (!doc) {
    d.errors.push_back("not valid JSON: " + why.message + (why.byte ? " (byte " + std::to_string(why.byte) + ")" : ""));
    return d;
  }
  Checker(d).run(*doc);
  return d;
}

std::vector<std::string> variant_property_strings(const VariantProperties& p) {
  std::vector<std::string> out;
  for (const auto& [ns, fs] : p)
    for (const auto& [f, vs] : fs)
      for (const auto& v : vs) out.push_back(ns + " :: " + f + " :: " + v);
  std::sort(out.begin(), out.end());
  return out;
}

std::string describe_variant_properties(const VariantProperties& p) {
  std::vector<std::string> parts;
  for (const auto& [ns, fs] : p) {
    std::vector<std::string> feats;
    for (const auto& [f, vs] : fs) feats.push_back(f + " " + join(vs, " "));
    parts.push_back(ns + ": " + join(feats, "; "));
  }
  return parts.empty() ? "no properties (the null variant: every machine)" : join(parts, " | ");
}

std::string describe_variant_selection(const VariantProperties& p) {
  std::vector<std::string> parts;
  for (const auto& [ns, fs] : p) {
    if (ns == "nvidia") {
      std::map<int, int> lowest;  // major -> lowest minor selected
      if (auto sm = fs.find("sm_arch"); sm != fs.end())
        for (const auto& v : sm->second) {
          auto us = v.find('_');
          auto num = parse_small(std::string_view(v).substr(0, us), 9999);
          if (!num || us == std::string::npos) continue;
          int major = *num / 10, minor = v.ends_with("_virtual") ? 0 : *num % 10;
          auto [it, fresh] = lowest.emplace(major, minor);
          if (!fresh) it->second = std::min(it->second, minor);
        }
      std::vector<std::string> ccs;
      for (const auto& [major, minor] : lowest)
        ccs.push_back(std::to_string(major) + "." + std::to_string(minor) +
                      (minor < 9 ? "-" + std::to_string(major) + ".9" : ""));
      std::string d = "NVIDIA GPUs whose highest compute capability is " + (ccs.empty() ? "any" : join(ccs, ", "));
      if (auto lo = fs.find("cuda_version_lower_bound"); lo != fs.end() && !lo->second.empty())
        d += ", with a driver for CUDA " + lo->second.front() + " or later";
      if (auto hi = fs.find("cuda_version_upper_bound"); hi != fs.end() && !hi->second.empty())
        d += ", below CUDA " + hi->second.front();
      parts.push_back(d);
    } else if (ns == "x86_64" && fs.count("level") && !fs.at("level").empty()) {
      parts.push_back("x86-64-" + fs.at("level").front() + " CPUs or newer");
    } else if (ns == "amd") {
      std::string d = "AMD GPUs";
      if (fs.count("gfx_arch")) d += " " + join(fs.at("gfx_arch"), "/");
      if (fs.count("rocm_version")) d += " with ROCm " + join(fs.at("rocm_version"), "/");
      parts.push_back(d);
    } else {
      std::vector<std::string> feats;
      for (const auto& [f, vs] : fs) feats.push_back(f + " " + join(vs, "/"));
      parts.push_back(ns + " (" + join(feats, "; ") + ")");
    }
  }
  return parts.empty() ? "every machine (the null variant)" : join(parts, "; and ");
}

std::map<std::string, std::vector<std::string>> nvidia_supported_values(const std::string& cc,
                                                                        const std::string& driver_cuda) {
  std::map<std::string, std::vector<std::string>> out;
  auto split2 = [](const std::string& v) -> std::optional<std::pair<int, int>> {
    auto dot = v.find('.');
    auto a = parse_small(std::string_view(v).substr(0, dot), 99);
    auto b = dot == std::string::npos ? std::optional<int>(0) : parse_small(std::string_view(v).substr(dot + 1), 99);
    if (!a || !b) return std::nullopt;
    return std::pair{*a, *b};
  };
  auto umd = split2(driver_cuda);
  if (!umd || *umd < std::pair{11, 0} || *umd > std::pair{15, 20}) return out;  // the provider reports nothing
  auto& lower = out["cuda_version_lower_bound"];
  for (int major = umd->first; major >= 11; --major) {
    for (int minor = major == umd->first ? umd->second : 20; minor >= 0; --minor)
      lower.push_back(std::to_string(major) + "." + std::to_string(minor));
    lower.push_back(std::to_string(major));
  }
  auto& upper = out["cuda_version_upper_bound"];
  for (int major = 15; major >= umd->first; --major) {
    for (int minor = 20; minor >= (major == umd->first ? umd->second + 1 : 0); --minor)
      upper.push_back(std::to_string(major) + "." + std::to_string(minor));
    if (major > umd->first) upper.push_back(std::to_string(major));
  }
  auto c = split2(cc);
  if (c && c->first >= 5) {
    auto& sm = out["sm_arch"];
    for (int m = c->second; m >= 0; --m) sm.push_back(std::to_string(c->first) + std::to_string(m) + "_real");
    sm.push_back(std::to_string(c->first) + "0_virtual");
  }
  return out;
}

}  // namespace wc
