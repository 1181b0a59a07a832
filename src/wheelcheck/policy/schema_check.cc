#include "policy/schema_check.h"

#include <algorithm>
#include <map>
#include <mutex>

#include "policy/json_locate.h"
#include "util/pattern.h"
#include "util/strings.h"

namespace wc {
namespace {

// The schema's patterns, compiled once (RE2: policy values are user input, matched in linear time).
bool matches(const std::string& pattern, const std::string& text) {
  static std::mutex mu;
  static std::map<std::string, std::optional<Pattern>> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(pattern);
  if (it == cache.end()) it = cache.emplace(pattern, Pattern::compile(pattern, false, nullptr)).first;
  return it->second && it->second->search(text);
}

using nlohmann::json;

std::string type_of(const json& v) {
  if (v.is_object()) return "object";
  if (v.is_array()) return "array";
  if (v.is_string()) return "string";
  if (v.is_boolean()) return "boolean";
  if (v.is_number_integer() || v.is_number_unsigned()) return "integer";
  if (v.is_number()) return "number";
  return "null";
}

bool type_matches(const json& v, const std::string& t) {
  std::string actual = type_of(v);
  return actual == t || (t == "number" && actual == "integer");
}

class Validator {
 public:
  explicit Validator(const json& root) : root_(root) {}
  std::vector<SchemaIssue> issues;

  void check(const json& v, const json& s, const std::string& ptr) {
    if (s.contains("$ref")) {
      std::string ref = s["$ref"];
      const json* target = resolve(ref);
      if (target) check(v, *target, ptr);
      return;
    }
    if (s.contains("type") && !check_type(v, s["type"], ptr)) return;
    if (s.contains("enum") && std::find(s["enum"].begin(), s["enum"].end(), v) == s["enum"].end()) {
      add(ptr, "value " + v.dump() + " is not one of " + s["enum"].dump());
      return;
    }
    if (s.contains("anyOf")) {
      any_of(v, s["anyOf"], ptr);
      return;
    }
    if (v.is_string() && s.contains("pattern")) {
      if (!matches(s["pattern"].get<std::string>(), v.get<std::string>()))
        add(ptr,
            "'" + escape_for_display(v.get<std::string>()) + "' does not match " + s["pattern"].get<std::string>());
    }
    if (v.is_number()) numbers(v, s, ptr);
    if (v.is_array()) array(v, s, ptr);
    if (v.is_object()) object(v, s, ptr);
  }

 private:
  const json& root_;

  void add(const std::string& ptr, std::string msg) { issues.push_back({ptr, std::move(msg)}); }

  const json* resolve(const std::string& ref) {
    if (ref.rfind("#/", 0) != 0) return nullptr;
    try {
      return &root_.at(json::json_pointer(ref.substr(1)));
    } catch (...) {
      return nullptr;
    }
  }

  bool check_type(const json& v, const json& t, const std::string& ptr) {
    std::vector<std::string> types;
    if (t.is_string())
      types.push_back(t);
    else
      for (const auto& x : t) types.push_back(x);
    for (const auto& x : types)
      if (type_matches(v, x)) return true;
    std::string want;
    for (size_t i = 0; i < types.size(); ++i) want += (i ? " or " : "") + types[i];
    add(ptr, "expected " + want + ", found " + type_of(v));
    return false;
  }

  void any_of(const json& v, const json& alts, const std::string& ptr) {
    std::vector<SchemaIssue> best;
    for (const auto& alt : alts) {
      Validator sub(root_);
      sub.check(v, alt, ptr);
      if (sub.issues.empty()) return;
      if (best.empty() || sub.issues.size() < best.size()) best = sub.issues;
    }
    issues.insert(issues.end(), best.begin(), best.end());
  }

  void numbers(const json& v, const json& s, const std::string& ptr) {
    double d = v.get<double>();
    if (s.contains("minimum") && d < s["minimum"].get<double>()) add(ptr, "must be at least " + s["minimum"].dump());
    if (s.contains("exclusiveMinimum") && d <= s["exclusiveMinimum"].get<double>())
      add(ptr, "must be greater than " + s["exclusiveMinimum"].dump());
  }

  void array(const json& v, const json& s, const std::string& ptr) {
    if (s.contains("minItems") && v.size() < s["minItems"].get<size_t>())
      add(ptr, "needs at least " + s["minItems"].dump() + " items");
    if (s.contains("items"))
      for (size_t i = 0; i < v.size(); ++i) check(v[i], s["items"], ptr + "/" + std::to_string(i));
  }

  void object(const json& v, const json& s, const std::string& ptr) {
    if (s.contains("required"))
      for (const auto& r : s["required"])
        if (!v.contains(r.get<std::string>())) add(ptr, "missing required key '" + r.get<std::string>() + "'");
    for (const auto& [k, val] : v.items()) {
      std::string child = ptr + "/" + json_pointer_escape(k);
      bool matched = false;
      if (s.contains("properties") && s["properties"].contains(k)) {
        check(val, s["properties"][k], child);
        matched = true;
      }
      if (s.contains("patternProperties")) {
        for (const auto& [pat, sub] : s["patternProperties"].items()) {
          if (matches(pat, k)) {
            check(val, sub, child);
            matched = true;
          }
        }
      }
      if (matched || !s.contains("additionalProperties")) continue;
      const json& ap = s["additionalProperties"];
      if (ap.is_boolean() && !ap.get<bool>())
        add(child, unknown_key_message(k, s));
      else if (ap.is_object())
        check(val, ap, child);
    }
  }

  std::string unknown_key_message(const std::string& k, const json& s) {
    std::string msg = "unknown key '" + k + "'";
    if (!s.contains("properties")) return msg;
    std::string best;
    size_t best_d = 3;
    for (const auto& [name, _] : s["properties"].items()) {
      size_t d = edit_distance(k, name);
      if (d < best_d) best_d = d, best = name;
    }
    if (!best.empty()) msg += " (did you mean '" + best + "'?)";
    return msg;
  }
};

}  // namespace

std::vector<SchemaIssue> schema_validate(const json& instance, const json& schema) {
  Validator v(schema);
  v.check(instance, schema, "");
  return v.issues;
}

}  // namespace wc
