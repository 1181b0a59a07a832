// The check pipeline as a library (pipeline/check.h): targets expand in a stable order, results keep
// it whatever the number of jobs, each wheel is its own error boundary, and the request's options
// (depth, facts, binaries) reach the analysis.
#include <gtest/gtest.h>

#include <mutex>
#include <set>

#include "io/targets.h"
#include "pipeline/check.h"
#include "support/test_support.h"
#include "wheel_builder.h"

namespace wc {
namespace {

using testing::TempDir;
using testing::WheelBuilder;

struct Batch {
  TempDir dir;
  std::vector<std::string> wheels;
  Batch() {
    for (int i = 0; i < 6; ++i) {
      auto b = WheelBuilder("pkg" + std::to_string(i), "1.0")
                   .add("pkg" + std::to_string(i) + "/__init__.py", std::string(1000 * i, 'x'));
      if (i == 2) b.edit_record([](auto& rows) { rows[0][2] = "5"; });  // WC303
      wheels.push_back(b.write(dir.path()));
    }
    testing::write_file(dir.file("junk-1.0-py3-none-any.whl"), std::vector<uint8_t>(300, 'j'));  // WC404
    wheels.push_back(dir.file("junk-1.0-py3-none-any.whl"));
  }
};

std::vector<std::string> verdicts(const RunReport& r) {
  std::vector<std::string> v;
  for (const auto& i : r.items) {
    std::string rules;
    for (const auto& f : i.findings) rules += f.rule + " ";
    v.push_back(target_basename(i.path) + ": " + (i.pass() ? "pass " : "fail ") + rules);
  }
  return v;
}

TEST(Pipeline, OrderAndVerdictsDoNotDependOnJobs) {
  Batch b;
  Policy p = load_policy("default");
  CheckRequest req;
  req.targets = {b.dir.path()};
  req.jobs = 1;
  auto one = run_check(req, p);
  ASSERT_EQ(one.items.size(), b.wheels.size());
  std::vector<std::string> sorted = b.wheels;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i) EXPECT_EQ(one.items[i].path, sorted[i]);  // directories expand sorted
  auto v = verdicts(one);
  EXPECT_EQ(v[0], "junk-1.0-py3-none-any.whl: fail WC404 ")
      << "an unreadable wheel is a finding, and the batch goes on";
  EXPECT_EQ(v[3], "pkg2-1.0-py3-none-any.whl: fail WC303 ");
  EXPECT_EQ(v[1], "pkg0-1.0-py3-none-any.whl: pass ");
  for (unsigned jobs : {2u, 4u, 16u}) {
    req.jobs = jobs;
    EXPECT_EQ(verdicts(run_check(req, p)), v) << jobs << " jobs";
  }
}

TEST(Pipeline, ProgressOncePerWheelAndOptionsReachTheAnalysis) {
  Batch b;
  Policy p = load_policy("default");
  CheckRequest req;
  req.targets = b.wheels;
  req.jobs = 3;
  req.include_facts = true;
  req.depth = Depth::metadata;
  std::mutex mu;
  std::multiset<std::string> seen;
  size_t last_total = 0;
  req.progress = [&](size_t, size_t total, const std::string& path) {
    std::lock_guard<std::mutex> l(mu);
    seen.insert(path);
    last_total = total;
  };
  auto r = run_check(req, p);
  EXPECT_EQ(seen, std::multiset<std::string>(b.wheels.begin(), b.wheels.end()));
  EXPECT_EQ(last_total, b.wheels.size());
  EXPECT_EQ(r.depth, "metadata");
  ASSERT_EQ(r.items.size(), b.wheels.size());
  EXPECT_EQ(r.items[0].facts["depth"], "metadata");
  // At metadata depth the RECORD size of pkg2 is still compared, with the zip's declared size.
  EXPECT_EQ(verdicts(r)[2], "pkg2-1.0-py3-none-any.whl: fail WC303 ");
}

TEST(Pipeline, MissingTargetIsAUsageError) {
  Policy p = load_policy("default");
  CheckRequest req;
  req.targets = {"/nonexistent/x.whl"};
  EXPECT_THROW(run_check(req, p), std::runtime_error);
}

}  // namespace
}  // namespace wc
