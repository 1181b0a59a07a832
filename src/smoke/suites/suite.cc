#include "smoke/suites/suite.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <stdexcept>

namespace wc::smoke {

std::vector<std::unique_ptr<Suite>> all_suites() {
  std::vector<std::unique_ptr<Suite>> s;
  s.push_back(make_rng_graph_suite());
  s.push_back(make_pad_concat_suite());
  s.push_back(make_dtensor_view_suite());
  return s;
}

void for_each_case(const nlohmann::json& doc, const std::vector<std::string>& keys,
                   const std::function<void(const nlohmann::json&, const std::string&)>& fn) {
  const bool wrapped = doc.is_object() && doc.contains("cases");
  const nlohmann::json& arr = wrapped ? doc["cases"] : doc;
  const std::string base = doc.is_object() ? "/cases" : "";
  if (!arr.is_array()) throw std::runtime_error(base + ": expected an array of cases");
  std::string allowed;
  for (const auto& k : keys) allowed += (allowed.empty() ? "" : ", ") + k;
  for (size_t i = 0; i < arr.size(); ++i) {
    const std::string ptr = base + "/" + std::to_string(i);
    const nlohmann::json& c = arr[i];
    if (!c.is_object()) throw std::runtime_error(ptr + ": expected an object");
    for (const auto& [k, v] : c.items())
      if (std::find(keys.begin(), keys.end(), k) == keys.end())
        throw std::runtime_error(ptr + "/" + k + ": unknown key (" + allowed + ")");
    fn(c, ptr);
  }
}

CaseOutcome run_case(const std::string& suite, const std::string& name, const std::string& backend,
                     const std::function<std::string()>& fn) {
  CaseOutcome o;
  o.suite = suite, o.name = name, o.backend = backend;
  auto t0 = std::chrono::steady_clock::now();
  try {
    o.message = fn();
    o.passed = o.message.empty();
  } catch (const std::exception& e) {
    o.error = true;
    o.message = e.what();
  }
  o.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return o;
}

CaseOutcome skipped_case(const std::string& suite, const std::string& name, const std::string& backend,
                         const std::string& why) {
  CaseOutcome o;
  o.suite = suite, o.name = name, o.backend = backend;
  o.skipped = true;
  o.message = why;
  return o;
}

}  // namespace wc::smoke
