#include "pipeline/check.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

#include "io/targets.h"
#include "rules/rules.h"

namespace wc {

unsigned default_jobs() { return std::max(1u, std::thread::hardware_concurrency()); }

namespace {

// The facts of a wheel whose analysis threw: its name, and what failed.
WheelFacts failed_analysis(const std::string& path, const std::string& what) {
  WheelFacts f;
  f.path = path;
  f.filename = parse_wheel_filename(target_basename(path));
  f.unreadable.push_back({"analysis stopped by an internal error: " + what, "", 0});
  return f;
}

}  // namespace

std::vector<WheelFacts> analyze_all(const std::vector<std::string>& paths, const AnalyzeOptions& opt, unsigned jobs,
                                    const std::function<void(size_t, size_t, const std::string&)>& progress) {
  std::vector<WheelFacts> facts(paths.size());
  // Jobs go to wheels first; what is left over reads entries within a wheel (one torch wheel on
  // two cores: its two large libraries inflate at once).
  unsigned n = std::min<size_t>(std::max(1u, jobs ? jobs : default_jobs()), std::max<size_t>(1, paths.size()));
  AnalyzeOptions per_wheel = opt;
  per_wheel.threads = std::max(1u, (jobs ? jobs : default_jobs()) / n);
  std::atomic<size_t> next{0}, done{0};
  std::mutex mu;
  auto worker = [&] {
    for (size_t i; (i = next++) < paths.size();) {
      try {
        facts[i] = analyze_target(paths[i], per_wheel);
      } catch (const std::exception& e) {
        facts[i] = failed_analysis(paths[i], e.what());
      } catch (...) {
        facts[i] = failed_analysis(paths[i], "unknown exception");
      }
      size_t d = ++done;
      if (progress) {
        std::lock_guard<std::mutex> lock(mu);
        progress(d, paths.size(), paths[i]);
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < n; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  return facts;
}

WheelVerdict judge_wheel(const WheelFacts& f, const std::vector<WheelFacts>& all, const Policy& policy) {
  try {
    return check_wheel(f, policy, install_set_for(f, all));
  } catch (const std::exception& e) {
    FindingSink s(policy);
    s.add("WC404", std::string("checking stopped by an internal error: ") + e.what());
    return {s.take(), s.take_waived()};
  }
}

RunReport run_check(const CheckRequest& req, const Policy& policy) {
  auto paths = expand_targets(req.targets, req.match);
  AnalyzeOptions opt = analyze_options_for(policy);
  opt.binaries = req.binaries;
  opt.depth = req.depth;
  auto facts = analyze_all(paths, opt, req.jobs, req.progress);
  RunReport report;
  report.policy = policy.name;
  report.depth = req.depth == Depth::metadata ? "metadata" : "full";
  for (const auto& f : facts) {
    ItemResult item;
    item.path = f.path;
    WheelVerdict v = judge_wheel(f, facts, policy);
    item.findings = std::move(v.findings);
    item.waived = std::move(v.waived);
    if (req.include_facts) item.facts = facts_to_json(f);
    report.items.push_back(std::move(item));
  }
  return report;
}

}  // namespace wc
