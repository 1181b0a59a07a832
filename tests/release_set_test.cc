// The release set (WC702-WC705, WC707): the matrix, metadata agreement modulo markers and variant
// pins, mislabelled CUDA variants, size regressions against a baseline report; sharding and merge
// end to end; the set in every report format.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "pipeline/check.h"
#include "rules/release/release_facts.h"
#include "rules/release/release_set.h"
#include "support/test_support.h"
#include "wheel/entry_names.h"
#include "wheel_builder.h"

namespace wc {
namespace {

using nlohmann::json;
using testing::run_wheelcheck;
using testing::TempDir;
using testing::WheelBuilder;

// The top-level import names a wheel installs (WC715 compares them with the baseline's): each
// once, sorted, whether a package's entries follow each other or not, a .data purelib/ path at
// where it installs; metadata, .libs, __pycache__ and hidden folders are none.
TEST(ReleaseFacts, TopLevelNamesOnceEachInAnyOrder) {
  WheelFacts f;
  for (const char* name :
       {"b/y.py", "a/x.py", "a/sub/z.py", "b/w.py", "a/x.py", "m.py", "README.txt",
        "ext.cpython-312-x86_64-linux-gnu.so", "a-1.0.dist-info/METADATA", "a-1.0.data/purelib/d/k.py",
        "a.libs/libz.so", "__pycache__/m.cpython-312.pyc", ".hidden/h.py", "a/y.py"})
    f.entries.emplace_back().name = name;
  EXPECT_EQ(top_level_names(f), (std::vector<std::string>{"a", "b", "d", "ext", "m"}));  // d: from purelib/
}

TEST(EntryNames, PythonKeywords) {
  for (const char* k : {"as", "if", "None", "True", "continue", "nonlocal", "finally", "yield"})
    EXPECT_TRUE(is_python_keyword(k)) << k;
  for (const char* n : {"", "a", "d000", "match", "asyncio", "nonlocals", "none", "print"})
    EXPECT_FALSE(is_python_keyword(n)) << n;
}

Policy policy_with(const std::string& release_json) {
  TempDir d;
  std::string text = R"({"extends": "default", "release": )" + release_json + "}";
  testing::write_file(d.file("p.json"), std::vector<uint8_t>(text.begin(), text.end()));
  return load_policy(d.file("p.json"));
}

// A member as summarize() would make it from a wheel called `filename`.
SetMember member(const std::string& filename, std::vector<std::string> requires_dist = {},
                 std::vector<std::string> pins = {}) {
  WheelFacts f;
  f.path = filename;
  f.filename = parse_wheel_filename(filename);
  f.file_size = 1000;
  SetMember m = summarize(f, load_policy("default"));
  m.have_metadata = true;
  m.metadata_version_field = m.version;
  m.requires_python = ">=3.10";
  m.classifiers = {"Programming Language :: Python :: 3"};
  m.requires_dist = std::move(requires_dist);
  m.cuda_pins = std::move(pins);
  return m;
}

std::vector<std::string> rendered(const SetVerdict& v) {
  std::vector<std::string> out;
  for (const auto& f : v.findings) out.push_back(f.rule + " " + f.entry + ": " + f.message);
  return out;
}

bool has(const SetVerdict& v, const std::string& rule, const std::string& entry, const std::string& text) {
  for (const auto& f : v.findings)
    if (f.rule == rule && f.entry == entry && f.message.find(text) != std::string::npos) return true;
  return false;
}

std::string dump(const SetVerdict& v) {
  std::string s;
  for (const auto& l : rendered(v)) s += l + "\n";
  return s;
}

const char* kMatrix = R"({"project": "demo", "version": "2.*",
  "python": ["cp312-cp312", "cp313-cp313"], "platforms": ["manylinux_*_x86_64", "macosx_*_arm64"],
  "variants": ["cpu", "cu128"], "exceptions": [{"platform": "macosx_*", "variant": "cu*", "reason": "no CUDA on macOS"}]})";

TEST(ReleaseSet, MatrixNamesWhatIsMissingAndWhatIsUnexpected) {
  Policy p = policy_with(kMatrix);
  std::vector<SetMember> ms;
  for (const char* py : {"cp312", "cp313"}) {
    ms.push_back(member(std::string("demo-2.0+cpu-") + py + "-" + py + "-manylinux_2_28_x86_64.whl"));
    ms.push_back(member(std::string("demo-2.0+cpu-") + py + "-" + py + "-macosx_11_0_arm64.whl"));
  }
  ms.push_back(member("demo-2.0+cu128-cp312-cp312-manylinux_2_28_x86_64.whl"));  // cp313 cu128 missing
  ms.push_back(member("demo-2.0+cu128-cp311-cp311-manylinux_2_28_x86_64.whl"));  // not in the matrix
  ms.push_back(member("other-1.0-py3-none-any.whl"));                            // another project: not judged
  auto v = check_release_set(ms, p, nullptr);
  EXPECT_EQ(v.members, 6u);
  EXPECT_TRUE(has(v, "WC703", "", "no wheel for cp313-cp313 / manylinux_*_x86_64 / cu128")) << dump(v);
  EXPECT_TRUE(has(v, "WC704", "demo-2.0+cu128-cp311-cp311-manylinux_2_28_x86_64.whl", "not in the expected matrix"))
      << dump(v);
  EXPECT_EQ(v.findings.size(), 2u) << "macOS cu128 is excepted, not missing: " << dump(v);
  // The same set complete: nothing to say.
  ms.pop_back();
  ms.pop_back();
  ms.push_back(member("demo-2.0+cu128-cp313-cp313-manylinux_2_28_x86_64.whl"));
  EXPECT_TRUE(check_release_set(ms, p, nullptr).findings.empty()) << dump(check_release_set(ms, p, nullptr));
}

TEST(ReleaseSet, RequiresDistAgreesModuloMarkersAndVariantPins) {
  Policy p = policy_with(R"({"project": "demo"})");
  const std::string cublas = "nvidia-cublas-cu12==12.8.4.1; platform_system == \"Linux\"";
  auto x86 = member("demo-2.0+cu128-cp312-cp312-manylinux_2_28_x86_64.whl", {"filelock", cublas});
  auto arm = member("demo-2.0+cu128-cp312-cp312-manylinux_2_28_aarch64.whl", {"filelock"});
  auto mac = member("demo-2.0+cpu-cp312-cp312-macosx_11_0_arm64.whl", {"filelock"});
  auto cu126 = member("demo-2.0+cu126-cp312-cp312-manylinux_2_28_x86_64.whl",
                      {"filelock", "nvidia-cublas-cu12==12.6.4.1; platform_system == \"Linux\""});
  auto v = check_release_set({x86, arm, mac, cu126}, p, nullptr);
  // The aarch64 wheel lacks a dependency whose marker holds there; macOS and the other variant's pin are fine.
  EXPECT_TRUE(
      has(v, "WC705", arm.filename, "lacks Requires-Dist 'nvidia-cublas-cu12==12.8.4.1; platform_system == \"Linux\"'"))
      << dump(v);
  EXPECT_EQ(v.findings.size(), 1u) << dump(v);
  // A marker that limits it to x86_64 excuses the aarch64 wheel.
  x86.requires_dist[1] = "nvidia-cublas-cu12==12.8.4.1; platform_machine == \"x86_64\"";
  EXPECT_TRUE(check_release_set({x86, arm, mac, cu126}, p, nullptr).findings.empty());
}

// Without a release section, every group of one project and version in a run must still agree:
// the aarch64 wheel missing the Requires-Dist its siblings declare fails under the default policy;
// another project's wheels in the same run form their own group; "consistency": false turns it off.
TEST(ReleaseSet, ConsistencyWithoutAPolicy) {
  Policy p = load_policy("default");
  auto x86 = member("demo-2.0-cp312-cp312-manylinux_2_28_x86_64.whl", {"filelock", "numpy>=2"});
  auto mac = member("demo-2.0-cp312-cp312-macosx_11_0_arm64.whl", {"filelock", "numpy>=2"});
  auto arm = member("demo-2.0-cp312-cp312-manylinux_2_28_aarch64.whl", {"filelock"});
  auto other = member("other-1.0-py3-none-any.whl", {"requests"});
  auto older = member("demo-1.9-cp312-cp312-manylinux_2_28_x86_64.whl", {});
  auto v = check_release_set({x86, mac, arm, other, older}, p, nullptr);
  EXPECT_TRUE(has(v, "WC705", arm.filename, "lacks Requires-Dist 'numpy>=2'")) << dump(v);
  EXPECT_EQ(v.findings.size(), 1u) << dump(v);
  EXPECT_EQ(v.members, 3u);  // demo 2.0's three wheels; demo 1.9 and other are alone in their groups
  Policy off = policy_with(R"({"consistency": false})");
  EXPECT_TRUE(check_release_set({x86, mac, arm}, off, nullptr).findings.empty());
  // Through the CLI: the set section appears with the finding, and the run fails.
  testing::TempDir d;
  for (const auto& [tag, reqs] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"py3-none-manylinux_2_28_x86_64", {"numpy>=2"}}, {"py3-none-manylinux_2_28_aarch64", {}}}) {
    WheelBuilder b("demo", "2.0", tag);
    b.purelib(false).add("demo/__init__.py", "");
    for (const auto& r : reqs) b.requires_dist(r);
    b.write(d.path());
  }
  auto r = run_wheelcheck({"check", "--format", "json", d.path()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("lacks Requires-Dist 'numpy>=2'"), std::string::npos) << r.out;
}

TEST(ReleaseSet, VersionRequiresPythonAndClassifiersAgree) {
  Policy p = policy_with(R"({"project": "demo"})");
  std::vector<SetMember> ms = {member("demo-2.0-cp312-cp312-manylinux_2_28_x86_64.whl"),
                               member("demo-2.0-cp313-cp313-manylinux_2_28_x86_64.whl"),
                               member("demo-2.0-cp312-cp312-macosx_11_0_arm64.whl")};
  ms[1].requires_python = ">=3.9";
  ms[2].classifiers.push_back("Operating System :: MacOS");
  ms[2].metadata_version_field = "2.0.1";
  auto v = check_release_set(ms, p, nullptr);
  EXPECT_TRUE(has(v, "WC705", ms[1].filename, "Requires-Python is '>=3.9' here; 2 other wheels of the release"))
      << dump(v);
  EXPECT_TRUE(has(v, "WC705", ms[2].filename, "the Classifier list")) << dump(v);
  EXPECT_TRUE(has(v, "WC705", ms[2].filename, "METADATA's Version (without the local part) is '2.0.1'")) << dump(v);
  EXPECT_EQ(v.findings.size(), 3u) << dump(v);
}

TEST(ReleaseSet, OneMislabelledVariantAmongMany) {
  Policy p = policy_with(R"({"project": "demo"})");
  std::vector<SetMember> ms;
  for (const char* py : {"cp311", "cp312", "cp313"}) {
    auto a = member(std::string("demo-2.0+cu126-") + py + "-" + py + "-manylinux_2_28_x86_64.whl", {}, {"12", "12.6"});
    a.cuda_toolkits = {"12.6"}, a.cuda_links = {12};
    auto b = member(std::string("demo-2.0+cu128-") + py + "-" + py + "-manylinux_2_28_x86_64.whl", {}, {"12", "12.8"});
    b.cuda_toolkits = {"12.8"}, b.cuda_links = {12};
    ms.push_back(a), ms.push_back(b);
  }
  EXPECT_TRUE(check_release_set(ms, p, nullptr).findings.empty());
  // The cp313 cu128 wheel was built from the cu126 tree.
  ms.back().cuda_pins = {"12", "12.6"}, ms.back().cuda_toolkits = {"12.6"};
  auto v = check_release_set(ms, p, nullptr);
  EXPECT_TRUE(has(v, "WC707", ms.back().filename,
                  "labelled cu128, but here: CUDA 12/12.6 pins, the CUDA 12 runtime, GPU code from CUDA 12.6 (as the "
                  "cu126 wheels have); "
                  "the other cu128 wheels: CUDA 12/12.8 pins, the CUDA 12 runtime, GPU code from CUDA 12.8"))
      << dump(v);
  EXPECT_EQ(v.findings.size(), 1u) << dump(v);
  // At metadata depth the pins alone still tell.
  for (auto& m : ms) m.gpu_known = false;
  EXPECT_TRUE(has(check_release_set(ms, p, nullptr), "WC707", ms.back().filename, "(as the cu126 wheels have)"));
}

TEST(ReleaseSet, SizesAgainstTheBaseline) {
  Policy p = policy_with(R"({"project": "demo", "max_growth_ratio": 1.25})");
  auto before = member("demo-2.0.dev20261129+cu128-cp312-cp312-manylinux_2_28_x86_64.whl");
  before.size = 100'000'000;
  before.large_entries = {{"demo/lib/libdemo_cuda.so", 60'000'000}, {"demo/lib/libdemo.so", 30'000'000}};
  auto now = member("demo-2.0.dev20261130+cu128-cp312-cp312-manylinux_2_28_x86_64.whl");
  now.size = 130'000'000;
  now.large_entries = {{"demo/lib/libdemo_cuda.so", 88'000'000}, {"demo/lib/libdemo.so", 31'000'000}};
  std::vector<SetMember> base = {before};
  auto v = check_release_set({now}, p, &base);
  EXPECT_EQ(v.baseline_matched, 1u);
  EXPECT_TRUE(has(v, "WC702", now.filename, "grew from 100.0 MB to 130.0 MB (+30%) since the baseline")) << dump(v);
  EXPECT_TRUE(has(v, "WC702", now.filename, "grew most: demo/lib/libdemo_cuda.so (60.0 MB -> 88.0 MB)")) << dump(v);
  // Under the ratio as a whole, one entry over it on its own.
  now.size = 110'000'000;
  auto e = check_release_set({now}, p, &base);
  EXPECT_TRUE(has(e, "WC702", now.filename, "demo/lib/libdemo_cuda.so grew from 60.0 MB to 88.0 MB (+47%)")) << dump(e);
  EXPECT_EQ(e.findings.size(), 1u) << dump(e);
  // Members survive the JSON round trip reports and baselines go through.
  auto back = member_from_json(member_to_json(now));
  ASSERT_TRUE(back);
  EXPECT_EQ(member_to_json(*back), member_to_json(now));
  EXPECT_FALSE(member_from_json(json{{"no", "filename"}}));
  EXPECT_FALSE(member_from_json(json{{"filename", 3}}));
}

// PEP 740 across the run (WC914) and against the baseline (WC915): the members carry who published
// each file, as summarize() reads it from the verified attestations.
TEST(ReleaseSet, OnePublisherPerProjectAndNoneLost) {
  Policy p = policy_with(R"({"project": "demo"})");
  const std::string gh = "GitHub pytorch/demo release.yml";
  auto a = member("demo-2.0-cp312-cp312-manylinux_2_28_x86_64.whl");
  auto b = member("demo-2.0-cp313-cp313-manylinux_2_28_x86_64.whl");
  auto c = member("demo-2.0-cp312-cp312-win_amd64.whl");
  a.provenance = b.provenance = c.provenance = gh;
  EXPECT_TRUE(rendered(check_release_set({a, b, c}, p, nullptr)).empty())
      << dump(check_release_set({a, b, c}, p, nullptr));
  c.provenance = "none";
  auto v = check_release_set({a, b, c}, p, nullptr);
  EXPECT_TRUE(has(v, "WC914", "",
                  "demo: published by " + gh +
                      " (2: demo-2.0-cp312-cp312-manylinux_2_28_x86_64.whl and 1 more), but 1 without attestation "
                      "(demo-2.0-cp312-cp312-win_amd64.whl)"))
      << dump(v);
  c.provenance = "GitHub someone/demo release.yml";
  v = check_release_set({a, b, c}, p, nullptr);
  EXPECT_TRUE(has(v, "WC914", "", "demo: 2 publishers across its 3 files: GitHub pytorch/demo release.yml (2:"))
      << dump(v);
  // Remote files (nothing looked for) and projects nobody attested say nothing.
  c.provenance = "";
  EXPECT_TRUE(rendered(check_release_set({a, b, c}, p, nullptr)).empty());
  a.provenance = b.provenance = "none";
  EXPECT_TRUE(rendered(check_release_set({a, b}, p, nullptr)).empty());
  // Against the baseline: lost, changed, kept.
  auto before = member("demo-1.9-cp312-cp312-manylinux_2_28_x86_64.whl");
  before.provenance = gh;
  std::vector<SetMember> base = {before};
  a.provenance = "none";
  v = check_release_set({a}, p, &base);
  EXPECT_TRUE(has(v, "WC915", a.filename,
                  "published by " + gh +
                      " in the baseline (demo-1.9-cp312-cp312-manylinux_2_28_x86_64.whl), now without an attestation"))
      << dump(v);
  a.provenance = "GitLab pytorch/demo .gitlab-ci.yml";
  v = check_release_set({a}, p, &base);
  EXPECT_TRUE(has(v, "WC915", a.filename, "the publisher changed from " + gh)) << dump(v);
  a.provenance = gh;
  EXPECT_TRUE(rendered(check_release_set({a}, p, &base)).empty());
  // The member carries it through the JSON reports and baselines go through.
  auto back = member_from_json(member_to_json(a));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->provenance, gh);
}

TEST(ReleaseSet, ShardsPartitionByNameAloneAndCoverEverything) {
  std::vector<std::string> names;
  for (int i = 0; i < 200; ++i) names.push_back("demo-1.0-cp3" + std::to_string(i) + "-none-any.whl");
  std::vector<size_t> count(4, 0);
  for (const auto& n : names) ++count[shard_of("/some/dir/" + n, 4)];
  for (size_t c : count) EXPECT_GT(c, 20u) << "roughly even";
  EXPECT_EQ(shard_of("/a/x.whl", 4), shard_of("https://h/b/x.whl", 4)) << "the file name decides, not where it lives";
  auto shuffled = names;
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(3));
  EXPECT_EQ(targets_digest(names), targets_digest(shuffled));
  shuffled.pop_back();
  EXPECT_NE(targets_digest(names), targets_digest(shuffled));
}

// --- end to end -----------------------------------------------------------------------------------

struct ReleaseDir {
  TempDir dir;
  std::string policy;
  std::vector<std::string> wheels;
  ReleaseDir() {
    for (const char* py : {"cp312", "cp313"})
      for (const char* plat : {"manylinux_2_28_x86_64", "manylinux_2_28_aarch64"}) {
        std::string tag = std::string(py) + "-" + py + "-" + plat;
        auto b = WheelBuilder("demo", "2.0+cu128", tag).purelib(false).add("demo/__init__.py", "");
        // The aarch64 cp313 wheel forgot its CUDA dependency (the classic failure).
        if (!(std::string(py) == "cp313" && std::string(plat).find("aarch64") != std::string::npos))
          b.requires_dist("nvidia-cublas-cu12==12.8.4.1; platform_system == \"Linux\"");
        wheels.push_back(b.write(dir.path()));
      }
    std::string text =
        R"({"extends": "default", "rules": {"WC108": "off", "WC204": "off"}, "release": {"project": "demo",
      "python": ["cp312-cp312", "cp313-cp313", "cp314-cp314t"], "platforms": ["manylinux_*_x86_64", "manylinux_*_aarch64"], "variants": ["cu128"]}})";
    policy = dir.file("policy.json");
    testing::write_file(policy, std::vector<uint8_t>(text.begin(), text.end()));
  }
};

std::string slurp(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(ReleaseSetCli, EveryFormatCarriesTheSet) {
  ReleaseDir r;
  auto run = run_wheelcheck({"check", "-p", r.policy, r.dir.path(), "--report", "json:" + r.dir.file("r.json"),
                             "--report", "junit:" + r.dir.file("r.xml"), "--report", "sarif:" + r.dir.file("r.sarif"),
                             "--report", "github:" + r.dir.file("r.gh")});
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_NE(run.out.find("FAIL  release set: 4 wheels"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("WC703"), std::string::npos) << "cp314t is missing: " << run.out;
  auto j = json::parse(slurp(r.dir.file("r.json")));
  EXPECT_EQ(j["set"]["verdict"], "fail");
  EXPECT_EQ(j["set"]["members"], 4);
  EXPECT_EQ(j["summary"]["verdict"], "fail");
  std::set<std::string> rules;
  for (const auto& f : j["set"]["findings"]) rules.insert(f["rule"].get<std::string>());
  // cp314t missing; the aarch64 cp313 wheel lacks the CUDA pin the others declare (WC705), so its
  // cu128 label has no CUDA evidence behind it either (WC707).
  EXPECT_EQ(rules, (std::set<std::string>{"WC703", "WC705", "WC707"}));
  for (const auto& w : j["wheels"]) EXPECT_EQ(w["verdict"], "pass") << "each wheel is fine alone";
  EXPECT_NE(slurp(r.dir.file("r.xml")).find("name=\"release set\""), std::string::npos);
  EXPECT_NE(slurp(r.dir.file("r.sarif")).find("release set: "), std::string::npos);
  bool unavailable = false;
  std::string complaints = testing::schema_complaints({r.dir.file("r.xml"), r.dir.file("r.sarif")}, &unavailable);
  if (!unavailable) {
    EXPECT_EQ(complaints, "") << "the set's reports against junit-10.xsd and SARIF 2.1.0";
  }
  // Every SARIF result has a location (GitHub's upload-sarif rejects the file otherwise): a set
  // finding without a wheel points at the policy; URIs are percent-encoded references.
  auto sarif = json::parse(slurp(r.dir.file("r.sarif")));
  for (const auto& res : sarif["runs"][0]["results"]) {
    ASSERT_TRUE(res.contains("locations") && !res["locations"].empty()) << res.dump();
    std::string uri = res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"];
    EXPECT_EQ(uri.find(' '), std::string::npos) << uri;
  }
  EXPECT_NE(slurp(r.dir.file("r.gh")).find("title=WC703 release set::"), std::string::npos);
}

TEST(ReleaseSetCli, ShardsMergeToTheUnshardedVerdict) {
  ReleaseDir r;
  auto whole = run_wheelcheck({"check", "-p", r.policy, "--format", "json", r.dir.path()});
  auto set_of = [](const std::string& report) {
    auto j = json::parse(report);
    std::vector<std::string> out;
    for (const auto& f : j["set"]["findings"])
      out.push_back(f["rule"].get<std::string>() + " " + f.value("entry", "") + " " + f["message"].get<std::string>());
    return out;
  };
  std::vector<std::string> reports;
  for (int i = 1; i <= 3; ++i) {
    std::string out = r.dir.file("shard" + std::to_string(i) + ".json");
    // Targets in a different order each time: the partition does not care.
    std::vector<std::string> args = {"check",    "-p",         r.policy, "--shard", std::to_string(i) + "/3",
                                     "--report", "json:" + out};
    auto files = r.wheels;
    std::rotate(files.begin(), files.begin() + i, files.end());
    args.insert(args.end(), files.begin(), files.end());
    auto s = run_wheelcheck(args);
    EXPECT_LE(s.exit_code, 1) << s.err;
    EXPECT_NE(s.out.find("the release-set rules run when `wheelcheck merge` combines the shards"), std::string::npos)
        << s.out;
    reports.push_back(out);
  }
  std::vector<std::string> args = {"merge", "--format", "json"};
  args.insert(args.end(), reports.begin(), reports.end());
  auto merged = run_wheelcheck(args);
  EXPECT_EQ(merged.exit_code, 1) << merged.err;
  EXPECT_EQ(json::parse(merged.out)["wheels"].size(), 4u);
  EXPECT_EQ(set_of(merged.out), set_of(whole.out));
  // A missing shard, and a shard given twice, are errors that say so.
  auto missing = run_wheelcheck({"merge", reports[0], reports[2]});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("shard 2/3 missing"), std::string::npos) << missing.err;
  auto twice = run_wheelcheck({"merge", reports[0], reports[1], reports[2], reports[1]});
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_NE(twice.err.find("is also"), std::string::npos) << twice.err;
  EXPECT_EQ(run_wheelcheck({"check", "--shard", "4/3", r.dir.path()}).exit_code, 2);
  EXPECT_EQ(run_wheelcheck({"check", "--shard", "x", r.dir.path()}).exit_code, 2);
}

// Every JSON report the tools write matches docs/report.schema.json (check-jsonschema, from PyPI
// into a cache; skipped offline).
TEST(ReleaseSetCli, ReportsMatchTheSchema) {
  ReleaseDir r;
  std::vector<std::string> files;
  auto out = [&](const std::string& name) { return files.emplace_back(r.dir.file(name)); };
  run_wheelcheck({"check", "-p", r.policy, "--facts", "--report", "json:" + out("full.json"), r.dir.path()});
  run_wheelcheck(
      {"check", "-p", r.policy, "--depth", "metadata", "--report", "json:" + out("meta.json"), r.dir.path()});
  run_wheelcheck({"check", "-p", r.policy, "--shard", "1/2", "--report", "json:" + out("s1.json"), r.dir.path()});
  run_wheelcheck({"check", "-p", r.policy, "--shard", "2/2", "--report", "json:" + out("s2.json"), r.dir.path()});
  run_wheelcheck({"merge", "--baseline", files[0], "--report", "json:" + out("merged.json"), files[2], files[3]});
  auto smoke = testing::run_command(std::string(WS_BINARY) + " run --backend cpu --format json -o " +
                                    testing::shell_quote(out("smoke.json")));
  for (const auto& f : files) ASSERT_TRUE(std::filesystem::exists(f)) << f;
  auto merged = json::parse(slurp(files[4]));
  EXPECT_TRUE(merged.contains("set")) << "merge ran the set rules over the shards";
  std::string cmd = "python3 " + std::string(WC_SOURCE_DIR) + "/tools/validate_json.py " + std::string(WC_SOURCE_DIR) +
                    "/docs/report.schema.json";
  for (const auto& f : files) cmd += " " + testing::shell_quote(f);
  auto v = testing::run_command(cmd);
  if (v.exit_code == 77) GTEST_SKIP() << v.out;
  EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
}

TEST(ReleaseSetCli, BaselineFromLastNightsReport) {
  ReleaseDir r;
  std::string last = r.dir.file("last.json");
  run_wheelcheck({"check", "-p", r.policy, "--report", "json:" + last, r.dir.path()});
  // Tonight one wheel carries 3 MB more.
  TempDir tonight;
  std::string blob(3 << 20, '\0');
  uint32_t x = 5;
  for (auto& c : blob) c = static_cast<char>((x = x * 1664525 + 1013904223) >> 24);
  for (const auto& w : r.wheels)
    std::filesystem::copy_file(w, tonight.file(std::filesystem::path(w).filename().string()));
  std::string grown = WheelBuilder("demo", "2.0+cu128", "cp312-cp312-manylinux_2_28_x86_64")
                          .purelib(false)
                          .add("demo/__init__.py", "")
                          .add("demo/big.bin", blob)
                          .requires_dist("nvidia-cublas-cu12==12.8.4.1; platform_system == \"Linux\"")
                          .write(tonight.path());
  auto run = run_wheelcheck({"check", "-p", r.policy, "--baseline", last, "--format", "json", tonight.path()});
  auto j = json::parse(run.out);
  EXPECT_EQ(j["set"]["baseline_matched"], 4);
  bool found = false;
  for (const auto& f : j["set"]["findings"])
    found |= f["rule"] == "WC702" && f["entry"] == std::filesystem::path(grown).filename().string();
  EXPECT_TRUE(found) << run.out;
  auto bad = run_wheelcheck({"check", "-p", r.policy, "--baseline", r.dir.file("nope.json"), r.dir.path()});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("nope.json"), std::string::npos) << bad.err;
}

// issue 31, PyTorch's own checks: torchvision/torchaudio/torchao take the CUDA variant of the torch
// they pin ('==' without a label finds the torch wheel in the run for the same python and
// platform; a pin with a label must name the follower's own).
TEST(ReleaseSet, FollowersCarryThePinnedLeadersVariant) {
  Policy p = load_policy("pytorch");
  auto torch = member("torch-2.15.0+cu130-cp312-cp312-manylinux_2_28_x86_64.whl");
  auto torch_cpu = member("torch-2.15.0+cpu-cp312-cp312-manylinux_2_28_aarch64.whl");
  auto right = member("torchvision-0.30.0+cu130-cp312-cp312-manylinux_2_28_x86_64.whl", {"torch==2.15.0"});
  auto wrong = member("torchaudio-2.15.0+cu128-cp312-cp312-manylinux_2_28_x86_64.whl", {"torch==2.15.0", "numpy"});
  auto other_platform = member("torchao-0.18.0+cu130-cp312-cp312-manylinux_2_28_aarch64.whl", {"torch==2.15.0"});
  auto labelled = member("torchvision-0.30.0+cu126-cp313-cp313-manylinux_2_28_x86_64.whl", {"torch==2.15.0+cu130"});
  auto ranged = member("torchao-0.18.0+cu126-cp312-cp312-manylinux_2_28_x86_64.whl", {"torch>=2.15"});
  auto v = check_release_set({torch, torch_cpu, right, wrong, other_platform, labelled, ranged}, p, nullptr);
  EXPECT_TRUE(has(
      v, "WC707", wrong.filename,
      "labelled cu128, but the torch wheel its pin torch==2.15.0 takes in this run is cu130 (" + torch.filename + ")"))
      << dump(v);
  EXPECT_TRUE(
      has(v, "WC707", other_platform.filename, "the torch wheel its pin torch==2.15.0 takes in this run is cpu"))
      << dump(v);
  EXPECT_TRUE(has(v, "WC707", labelled.filename, "labelled cu126, but it pins torch==2.15.0+cu130, the cu130 build"))
      << dump(v);
  for (const auto* ok : {&right, &ranged, &torch})
    EXPECT_FALSE(has(v, "WC707", ok->filename, "")) << ok->filename << "\n" << dump(v);
  // The default policy has no such rule, and the rule declares no release matrix (no WC703/WC704).
  EXPECT_FALSE(has(check_release_set({torch, wrong}, load_policy("default"), nullptr), "WC707", wrong.filename, ""));
  EXPECT_FALSE(p.release.defined);
}

// pytorch-nightly: a nightly older than 3 days is WC708 (dates relative to today, UTC).
TEST(ReleaseSet, StaleNightliesAreFindings) {
  using namespace std::chrono;
  auto dev = [](int days_ago) {
    year_month_day d{floor<days>(system_clock::now()) - days(days_ago)};
    char buf[16];
    std::snprintf(buf, sizeof buf, "%04d%02u%02u", int(d.year()), unsigned(d.month()), unsigned(d.day()));
    return std::string(buf);
  };
  auto fresh = member("torch-2.16.0.dev" + dev(3) + "+cu130-cp312-cp312-manylinux_2_28_x86_64.whl");
  auto stale = member("torch-2.16.0.dev" + dev(12) + "+cu130-cp312-cp312-manylinux_2_28_aarch64.whl");
  auto release = member("torch-2.15.0+cu130-cp312-cp312-manylinux_2_28_x86_64.whl");
  auto v = check_release_set({fresh, stale, release}, load_policy("pytorch-nightly"), nullptr);
  EXPECT_TRUE(has(v, "WC708", stale.filename, "nightly dev" + dev(12) + " is 12 days old, over the policy's 3"))
      << dump(v);
  EXPECT_FALSE(has(v, "WC708", fresh.filename, "")) << dump(v);
  EXPECT_FALSE(has(v, "WC708", release.filename, "")) << dump(v);
  EXPECT_TRUE(check_release_set({stale}, load_policy("pytorch"), nullptr).findings.empty());
}

}  // namespace
}  // namespace wc
