// The JSON report written one item at a time (report/report.h write_json) against the whole tree
// dumped by nlohmann::json, and the release records a run parks in a scratch file until then
// (report/stored_json.h).
#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "pipeline/check.h"
#include "policy/policy.h"
#include "report/report.h"
#include "report/stored_json.h"
#include "support/test_support.h"
#include "wheel_builder.h"

namespace wc {
namespace {

using nlohmann::json;

std::string streamed(const RunReport& r) {
  std::ostringstream out;
  write_json(r, out);
  return out.str();
}

// What write_json wrote before it streamed: the tree, dumped whole with an indent of 2.
std::string whole(const RunReport& r) {
  return report_to_json(r).dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

// A name from an archive that is no UTF-8 (a lone continuation byte, an overlong NUL, 0xff).
const std::string kBadUtf8 = std::string("lib\x80x\xc0\x80y\xff.so");

ItemResult rich_item(const std::shared_ptr<AppendFile>& records) {
  ItemResult i;
  i.path = "/w/" + kBadUtf8 + ".whl";
  i.findings = {{"WC503", Severity::error, "needs " + kBadUtf8, "p/x.so", 77, {}},
                {"WC504", Severity::warning, "p/a.so: RUNPATH /x", "p/a.so", std::nullopt, {}}};
  i.findings[1].repeats.push_back({"WC504", Severity::warning, "p/b.so: RUNPATH /x", "p/b.so", std::nullopt, {}});
  i.waived = {{{"WC301", Severity::error, "hash", "a.py", std::nullopt, {}}, "known"}};
  i.notes = {"12 libraries loaded", "quote \" and backslash \\ and tab \t"};
  i.size = 123456789012, i.bytes_read = 42, i.requests = 3, i.connections = 2;
  i.release = json{{"filename", "x-1.0-py3-none-any.whl"},
                   {"binaries", json::array({{{"path", kBadUtf8}, {"exports", "AAEC"}, {"sass", json::array()}}})},
                   {"size", std::numeric_limits<uint64_t>::max()},
                   {"neg", -5},
                   {"ratio", 1.25},
                   {"empty", json::object()},
                   {"gpu_known", false},
                   {"nothing", nullptr}};
  if (records) i.release.park(records);
  i.sbom = {{"documents", 1}};
  i.provenance = {{"verified", true}};
  i.facts = {{"entries", json::array({kBadUtf8, "a"})}};
  return i;
}

// Every shape a report takes: no items, one, several; wheelcheck's key and wheelsmoke's two (one
// sorts first, one among the others); a set, a shard, notes, dependencies, variant choices; names
// that are not UTF-8 (replaced, as the tree's dump replaces them); release records parked or held.
TEST(ReportJson, WrittenItemByItemIsTheTreeDumped) {
  testing::TempDir dir;
  testing::ScopedEnv tmpdir("TMPDIR", dir.path());
  auto records = std::make_shared<AppendFile>("records");
  RunReport empty;
  empty.version = "0.1.0";
  EXPECT_EQ(streamed(empty), whole(empty));
  EXPECT_NE(streamed(empty).find("\n  \"wheels\": []\n}\n"), std::string::npos) << streamed(empty);

  RunReport full = empty;
  full.policy = "default", full.policy_source = "/p/" + kBadUtf8 + ".json", full.depth = "full";
  full.shard = ShardInfo{2, 8, 1000, "abc"};
  full.set = SetSection{{{"WC702", Severity::warning, "grew", "", std::nullopt, {}}}, {}, 3, "base.json", 2};
  full.dependencies = {"dep.whl"}, full.dependency_notes = {kBadUtf8};
  full.target_notes = {"page capped"};
  full.variant_choices = {{"torch", "2.15.0", "cp312", "", {"a", "b"}, {"c"}, true}};
  full.items.push_back(rich_item(records));
  full.items.push_back(rich_item(nullptr));
  ItemResult bare;
  bare.path = "bare.whl";
  bare.skipped = true, bare.skip_reason = "no GPU";
  full.items.push_back(bare);
  ASSERT_TRUE(full.items[0].release.parked());
  ASSERT_FALSE(full.items[1].release.parked());
  const std::string text = streamed(full);
  EXPECT_EQ(text, whole(full));
  auto back = json::parse(text);
  ASSERT_EQ(back["wheels"].size(), 3u);
  EXPECT_EQ(back["wheels"][0]["release"], back["wheels"][1]["release"]);  // parked or held, the same
  EXPECT_EQ(back["wheels"][0]["release"]["size"].get<uint64_t>(), std::numeric_limits<uint64_t>::max());

  for (const char* key : {"suites", "artifacts"}) {
    RunReport smoke = full;
    smoke.tool = "wheelsmoke", smoke.items_key = key;
    smoke.items.resize(1);
    EXPECT_EQ(streamed(smoke), whole(smoke)) << key;
    EXPECT_TRUE(json::parse(streamed(smoke)).contains(key)) << key;
  }
}

// A value parked comes back as it was: every JSON type, numbers at their limits, and a string's
// bytes as they were even where they are not UTF-8. A null stays in memory; parking twice writes
// once; a copy reads the same record.
TEST(ReportJson, AStoredValueComesBackAsParked) {
  testing::TempDir dir;
  testing::ScopedEnv tmpdir("TMPDIR", dir.path());
  auto records = std::make_shared<AppendFile>("records");
  const json value = {{"name", kBadUtf8},
                      {"u", std::numeric_limits<uint64_t>::max()},
                      {"i", std::numeric_limits<int64_t>::min()},
                      {"d", 0.1},
                      {"list", json::array({true, false, nullptr, "", json::array(), json::object()})}};
  StoredJson s = value;
  EXPECT_FALSE(s.parked());
  s.park(records);
  EXPECT_TRUE(s.parked());
  EXPECT_FALSE(s.is_null());
  EXPECT_EQ(s.get(), value);
  EXPECT_EQ(s.get()["name"].get<std::string>(), kBadUtf8);
  const uint64_t size = records->bytes();
  EXPECT_GT(size, 0u);
  s.park(records);
  EXPECT_EQ(records->bytes(), size) << "parked twice";
  StoredJson copy = s;
  EXPECT_EQ(copy.get(), value);
  StoredJson null;
  null.park(records);
  EXPECT_FALSE(null.parked());
  EXPECT_TRUE(null.is_null());
  StoredJson held = value;
  held.park(nullptr);
  EXPECT_FALSE(held.parked());
  EXPECT_EQ(held.get(), value);
  // Parked from several threads at once (each wheel's from the thread that read it).
  std::vector<StoredJson> many(64);
  {
    std::vector<std::jthread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&, t] {
        for (size_t k = static_cast<size_t>(t); k < many.size(); k += 4) {
          many[k] = json{{"k", k}, {"pad", std::string(k * 97, 'x')}};
          many[k].park(records);
        }
      });
  }
  for (size_t k = 0; k < many.size(); ++k) {
    ASSERT_TRUE(many[k].parked()) << k;
    EXPECT_EQ(many[k].get(), (json{{"k", k}, {"pad", std::string(k * 97, 'x')}})) << k;
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));  // unnamed: nothing left behind
}

// A run's own report: several wheels (their records parked) written item by item are the tree.
TEST(ReportJson, ARunOfSeveralWheelsWritesTheTree) {
  testing::TempDir wheels;
  CheckRequest req;
  for (int k = 0; k < 3; ++k)
    req.targets.push_back(testing::WheelBuilder("pkg" + std::to_string(k), "1.0")
                              .add("pkg" + std::to_string(k) + "/__init__.py", "")
                              .write(wheels.path()));
  RunReport r = run_check(req, load_policy("default"));
  ASSERT_EQ(r.items.size(), 3u);
  for (const auto& i : r.items) EXPECT_TRUE(i.release.parked()) << i.path;
  const std::string text = streamed(r);
  EXPECT_EQ(text, whole(r));
  // Written before the run's set member let go of what only a baseline compares.
  EXPECT_EQ(json::parse(text)["wheels"][2]["release"]["project"], "pkg2");
  EXPECT_EQ(json::parse(text)["wheels"][2]["release"]["top_level"], json::array({"pkg2"}));
}

}  // namespace
}  // namespace wc
