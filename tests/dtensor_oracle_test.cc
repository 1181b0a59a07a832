// The dtensor_view model against real PyTorch (issue 17): every case of a sweep (ops x shapes,
// uneven ones included, x 1-D and 2-D meshes x placements, _StridedShard and Partial among them)
// propagated by the model and by torch's DTensor over a fake process group
// (tools/dtensor_oracle.py); any disagreement fails. Opt-in: label `torch` (`make test-torch`
// installs the pinned torch into a cached venv and sets WHEELCHECK_TORCH_PYTHON); skipped otherwise.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "dtensor_view/view.h"
#include "support/test_support.h"
#include "util/strings.h"

namespace wc {
namespace {

using namespace wc::dtv;
using nlohmann::json;

struct OracleCase {
  Shape shape, mesh;
  std::vector<std::string> in;
  Op op;
};

std::string shape_text(const Shape& s) {
  std::string o;
  for (auto v : s) o += (o.empty() ? "" : ",") + std::to_string(v);
  return "[" + o + "]";
}

std::vector<OracleCase> sweep() {
  // Uneven shards on every mesh size: [6] and [6, 2] split 6 into 2 x 3 or 3 x 2 over meshes of 4
  // (issue 32: reshape([6] S(0), (2, 3)) on a mesh of 4 raises in PyTorch), [7] and [9, 2] over 2 and 4.
  const std::vector<Shape> shapes = {{8, 4}, {4, 6}, {2, 3, 4}, {24}, {4, 1, 6}, {5, 3}, {6, 4, 2},
                                     {3, 5}, {6, 5}, {10},      {6},  {7},       {6, 2}, {9, 2}};
  const std::vector<Shape> meshes = {{2}, {3}, {4}, {2, 2}, {2, 3}};
  std::vector<OracleCase> out;
  for (const Shape& s : shapes) {
    const std::vector<Op> ops = sweep_ops(s);
    for (const Shape& mesh : meshes) {
      for (const auto& pl : sweep_placements(s, mesh, true)) {
        std::vector<std::string> in;
        for (const auto& p : pl) in.push_back(to_string(p));
        for (const Op& op : ops) out.push_back({s, mesh, in, op});
      }
    }
  }
  return out;
}

TEST(DtensorOracle, ModelEqualsPyTorch) {
  const char* py = std::getenv("WHEELCHECK_TORCH_PYTHON");
  if (!py || !*py) GTEST_SKIP() << "set WHEELCHECK_TORCH_PYTHON to a python with torch (make test-torch does)";
  auto cases = sweep();
  testing::TempDir dir;
  {
    std::ofstream in(dir.file("cases.jsonl"));
    for (const auto& c : cases)
      in << json{{"shape", c.shape}, {"mesh", c.mesh}, {"in", c.in}, {"op", c.op.name}, {"args", c.op.args}}.dump()
         << "\n";
  }
  auto r = testing::run_command(std::string(py) + " " +
                                testing::shell_quote(std::string(WC_SOURCE_DIR) + "/tools/dtensor_oracle.py") + " < " +
                                testing::shell_quote(dir.file("cases.jsonl")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto lines = split(r.out, '\n');
  ASSERT_GT(lines.size(), cases.size()) << r.out.substr(0, 500);
  std::string version = json::parse(lines[0]).value("torch", "?");
  size_t agree = 0, raised = 0, torch_internal = 0;
  std::vector<std::string> differ;
  for (size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    json want = json::parse(lines[i + 1]);
    std::vector<Placement> in;
    for (const auto& p : c.in) in.push_back(*parse_placement(p));
    std::string got;
    try {
      got = to_string(propagate(c.op, c.shape, c.mesh, in).out);
    } catch (const ViewError& e) {
      got = std::string("raises: ") + e.what();
    }
    std::string theirs;
    if (want.contains("error")) {
      theirs = "raises: " + want["error"].get<std::string>();
      ++raised;
    } else {
      std::vector<Placement> o;
      for (const auto& p : want["out"]) o.push_back(*parse_placement(p.get<std::string>()));
      theirs = to_string(o);
    }
    bool same = got.starts_with("raises") ? theirs.starts_with("raises") : got == theirs;
    // PyTorch's own redistribution (not the view rule) fails an internal torch._check on a few
    // _StridedShard inputs the model gathers: a PyTorch defect, counted and shown, not a model error.
    if (!same && theirs.find("Expected cond to be True") != std::string::npos && !got.starts_with("raises")) {
      ++torch_internal;
      continue;
    }
    if (same) {
      ++agree;
      continue;
    }
    std::string args;
    for (auto a : c.op.args) args += (args.empty() ? "" : ",") + std::to_string(a);
    differ.push_back(shape_text(c.shape) + " " + join(c.in, ",") + " on mesh " + shape_text(c.mesh) + " " + c.op.name +
                     "(" + args + "): model " + got + ", torch " + version + " " + theirs);
  }
  std::string shown;
  for (size_t i = 0; i < differ.size() && i < 40; ++i) shown += differ[i] + "\n";
  EXPECT_TRUE(differ.empty()) << differ.size() << " of " << cases.size() << " cases differ from torch " << version
                              << ":\n"
                              << shown;
  std::cout << "[ oracle ] torch " << version << ": " << agree << " of " << cases.size() << " cases agree (" << raised
            << " raise in both); " << torch_internal << " fail inside PyTorch's redistribution\n";
}

}  // namespace
}  // namespace wc
