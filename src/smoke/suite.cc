#include "smoke/suite.h"

#include <chrono>
#include <functional>

namespace wc::smoke {

std::vector<std::unique_ptr<Suite>> all_suites() {
  std::vector<std::unique_ptr<Suite>> s;
  s.push_back(make_rng_graph_suite());
  s.push_back(make_pad_concat_suite());
  s.push_back(make_dtensor_view_suite());
  return s;
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
