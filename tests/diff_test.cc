// `wheelcheck diff` and `check --baseline`'s regression rules (WC710-WC716), on wheels built here:
// libraries from gcc whose exports, symbol versions and needs change between two "nights", a
// report written by one night and read as the next night's baseline, and hostile baselines.
#include <gtest/gtest.h>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include <nlohmann/json.hpp>

#include "policy/policy.h"
#include "rules/release/regressions.h"
#include "rules/release/release_facts.h"
#include "support/test_support.h"
#include "wheel_builder.h"

namespace wc {
namespace {

using testing::run_command;
using testing::shell_quote;
using testing::WheelBuilder;

TEST(Regressions, DevicesNotLabels) {
  // sm_120a -> sm_120 loses nothing; sm_50 dropped with PTX only at compute_120 loses 50/52/53.
  EXPECT_EQ(runnable_devices({"sm_120a"}), (std::set<int>{120}));
  EXPECT_EQ(runnable_devices({"sm_120"}), (std::set<int>{120, 121}));
  auto before = runnable_devices({"sm_50", "sm_80", "compute_120"});
  auto after = runnable_devices({"sm_80", "compute_120"});
  std::set<int> lost;
  for (int d : before)
    if (!after.count(d)) lost.insert(d);
  EXPECT_EQ(lost, (std::set<int>{50, 52, 53}));
  // PTX for compute_75 runs on every later device; sm_100f on its family only.
  EXPECT_TRUE(runnable_devices({"compute_75"}).count(120));
  EXPECT_EQ(runnable_devices({"sm_100f"}), (std::set<int>{100, 101, 103}));
}

TEST(Regressions, PackedNamesRoundTripAndRefuseGarbage) {
  // A shared prefix of exactly 10 bytes: its length byte is a newline.
  std::vector<std::string> names{"_ZN3c104gone", "_ZN3c104kept", "_ZN3c104keptEv", "abcdefghij1", "abcdefghij2", "foo"};
  auto packed = pack_names(names);
  auto back = unpack_names(packed);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, names);
  EXPECT_FALSE(unpack_names("not base64!"));
  EXPECT_FALSE(unpack_names("AAAA"));  // base64, not zstd
  nlohmann::json j = {{"path", "x/libx.so"}, {"exports", {{"count", 3}, {"names_zstd", packed}}}};
  EXPECT_THROW(binary_summary_from_json(j), std::runtime_error);  // the count disagrees
}

// torch's libraries: removed exports split into stable C shims and unstable C++; any library a
// wheel of the run needs is public (an error), another one a warning.
TEST(Regressions, TorchExportsSplitAndPublicLibraries) {
  auto member = [](std::vector<std::string> c10, std::vector<std::string> priv) {
    SetMember m;
    m.filename = "torch-2.15.0-cp312-cp312-manylinux_2_28_x86_64.whl";
    m.project = "torch";
    m.python_tags = {"cp312"}, m.abi_tags = {"cp312"}, m.platform_tags = {"manylinux_2_28_x86_64"};
    m.binaries_known = true;
    BinarySummary a, b;
    a.path = "torch/lib/libc10.so", a.format = "elf", a.exports = std::move(c10), a.exports_known = true;
    b.path = "torch/lib/libhelper.so", b.format = "elf", b.exports = std::move(priv), b.exports_known = true;
    m.binaries = {a, b};
    return m;
  };
  SetMember was = member({"_ZN3c104goneEv", "_ZN3c104keptEv", "aoti_torch_gone"}, {"helper_gone", "helper_kept"});
  SetMember now = member({"_ZN3c104keptEv"}, {"helper_kept"});
  PairChanges c = compare_members(was, now);
  ASSERT_EQ(c.changed_binaries.size(), 2u);
  EXPECT_EQ(c.changed_binaries[0].removed_stable, 1u);
  EXPECT_EQ(c.changed_binaries[0].removed_unstable, 1u);
  static const Policy p = load_policy("default");
  FindingSink s(p);
  pair_regressions(c, p, {}, s);
  auto fs = s.take();
  EXPECT_TRUE(testing::says(fs,
                            "WC711 [error] torch/lib/libc10.so: 2 exported names removed: c10::gone(), "
                            "aoti_torch_gone; 1 of them stable C shims"))
      << testing::dump(fs);
  EXPECT_TRUE(testing::says(fs, "WC711 [warning] torch/lib/libhelper.so: 1 exported name removed: helper_gone"))
      << testing::dump(fs);
  FindingSink needed(p);
  pair_regressions(c, p, {"libhelper.so"}, needed);  // a wheel of the run needs it: public
  EXPECT_TRUE(testing::says(needed.take(), "WC711 [error] torch/lib/libhelper.so")) << "needed";
}

class Nightly : public ::testing::Test {
 protected:
  testing::TempDir dir;
  void text_file(const std::string& name, const std::string& text) {
    testing::write_file(dir.file(name), std::vector<uint8_t>(text.begin(), text.end()));
  }
  std::string so(const std::string& name, const std::string& src) {
    return testing::gcc_shared_object(dir, name, src, "-Wl,-soname,libcore.so");
  }
  // One night's wheel of project `x`.
  std::string night(const std::string& folder, const std::string& version, const std::string& tag,
                    const std::string& lib_src, bool cli, const std::string& extra_req = "") {
    WheelBuilder w("x", version, tag);
    w.purelib(false).add("x/__init__.py", "").add("x/lib/libcore.so", so("libcore-" + folder + ".so", lib_src));
    if (cli) w.add(w.dist_info() + "/entry_points.txt", "[console_scripts]\nx-cli = x:main\n");
    if (!extra_req.empty()) w.requires_dist(extra_req);
    auto bytes = w.build();
    std::filesystem::create_directories(dir.file(folder));
    testing::write_file(dir.file(folder + "/" + w.filename()), bytes);
    return dir.file(folder);
  }
};

TEST_F(Nightly, ReportOfLastNightIsTheBaseline) {
  const std::string both = "void keep(void){} void gone(void){}", one = "void keep(void){}";
  auto old_dir = night("old", "1.0", "cp312-cp312-manylinux2014_x86_64", both, true);
  night("old", "1.0", "cp311-cp311-manylinux2014_x86_64", both, true);
  auto new_dir = night("new", "1.1", "cp312-cp312-manylinux_2_28_x86_64", one, false, "requests>=2");
  auto wc = shell_quote(WC_BINARY);
  auto r =
      run_command(wc + " check -q " + shell_quote(old_dir) + " --report json:" + shell_quote(dir.file("last.json")));
  ASSERT_NE(r.exit_code, 2) << r.err;
  auto gate = run_command(wc + " check -q " + shell_quote(new_dir) + " --baseline " +
                          shell_quote(dir.file("last.json")) + " --format json");
  EXPECT_EQ(gate.exit_code, 1) << gate.err;
  for (const char* want : {"\"WC711\"", "1 exported name removed: gone", "\"WC712\"",
                           "platform floor raised: manylinux2014_x86_64 -> "
                           "manylinux_2_28_x86_64",
                           "\"WC713\"", "cp311-cp311-manylinux2014_x86_64", "\"WC714\"", "added requests >=2",
                           "\"WC715\"", "entry points removed: console_scripts:x-cli"})
    EXPECT_NE(gate.out.find(want), std::string::npos) << want << "\n" << gate.out;
  // diff: the same regressions from the wheels themselves, and the entry changes.
  auto d = run_command(wc + " diff " + shell_quote(old_dir) + " " + shell_quote(new_dir) + " --format json");
  EXPECT_EQ(d.exit_code, 1) << d.err;
  auto j = nlohmann::json::parse(d.out);
  ASSERT_EQ(j["pairs"].size(), 1u) << d.out;
  const auto& pair = j["pairs"][0];
  EXPECT_EQ(pair["changes"]["binaries"][0]["exports"]["removed_names"], nlohmann::json({"gone"}));
  EXPECT_EQ(pair["changes"]["requires_dist"]["added"], nlohmann::json({"requests >=2"}));
  EXPECT_EQ(j["findings"][0]["rule"], "WC713");
  // The report as the old side gives the same binary changes (no entry list).
  auto dr =
      run_command(wc + " diff " + shell_quote(dir.file("last.json")) + " " + shell_quote(new_dir) + " --format json");
  auto jr = nlohmann::json::parse(dr.out);
  EXPECT_EQ(jr["pairs"][0]["changes"]["binaries"][0]["exports"]["removed_names"], nlohmann::json({"gone"}));
  EXPECT_FALSE(jr["pairs"][0]["changes"].contains("entries"));
  // Nothing changed: exit 0.
  auto same = run_command(wc + " diff " + shell_quote(old_dir) + " " + shell_quote(old_dir));
  EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
  EXPECT_NE(same.out.find("no regression"), std::string::npos) << same.out;
  // A policy allow entry with its reason: reported as waived, not failing.
  text_file("allow.json", R"({"name": "allow", "extends": "default", "baseline": {"allow": [)"
                          R"({"rule": "WC711", "binary": "x/lib/*", "reason": "gone() was internal"}]}})");
  auto allowed = run_command(wc + " diff " + shell_quote(old_dir) + " " + shell_quote(new_dir) + " -p " +
                             shell_quote(dir.file("allow.json")));
  EXPECT_NE(allowed.out.find("waived WC711"), std::string::npos) << allowed.out << allowed.err;
  EXPECT_NE(allowed.out.find("gone() was internal"), std::string::npos) << allowed.out;
}

TEST_F(Nightly, BadBaselinesAreClearErrors) {
  auto new_dir = night("new", "1.1", "cp312-cp312-manylinux_2_28_x86_64", "void keep(void){}", false);
  auto wc = shell_quote(WC_BINARY);
  text_file("other.json", R"({"schema": "something-else/2", "wheels": []})");
  auto r = run_command(wc + " diff " + shell_quote(dir.file("other.json")) + " " + shell_quote(new_dir));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("not a wheelcheck JSON report"), std::string::npos) << r.err;
  // A report whose packed names were tampered with names the file and the binary.
  nlohmann::json bad = {
      {"schema", "wheelcheck-report/1"},
      {"wheels",
       {{{"release",
          {{"filename", "x-1.0-cp312-cp312-manylinux_2_28_x86_64.whl"},
           {"project", "x"},
           {"binaries", {{{"path", "x/lib/libcore.so"}, {"exports", {{"count", 2}, {"names_zstd", "Zm9v"}}}}}}}}}}}};
  text_file("bad.json", bad.dump());
  auto b = run_command(wc + " check -q " + shell_quote(new_dir) + " --baseline " + shell_quote(dir.file("bad.json")));
  EXPECT_EQ(b.exit_code, 2);
  EXPECT_NE(b.err.find("bad.json: the exported names of x/lib/libcore.so do not decode"), std::string::npos) << b.err;
}

// Real pairs, pinned by sha256 and fetched into the test cache (skipped offline).
std::vector<std::string> fetch(const std::vector<std::array<std::string, 3>>& files) {
  const char* home = std::getenv("HOME");
  std::string args;
  for (const auto& [project, file, sha] : files) args += " " + project + " " + file + " " + sha;
  auto r = run_command("timeout 1800 python3 " + shell_quote(std::string(WC_SOURCE_DIR) + "/tools/fetch_wheels.py") +
                       " " + shell_quote(std::string(home ? home : "/root") + "/.cache/wheelcheck-tests/real") + args);
  if (r.exit_code == 3 || r.exit_code == 124) return {};
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> paths;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) paths.push_back(line);
  return paths;
}

// numpy 1.26.4 -> 2.3.5: the manylinux floor (2.17 -> 2.27) and Requires-Python rose; numpy/core
// became numpy/_core (binaries pair by base name across the move).
TEST(RealPairs, NumpyAcrossAManylinuxFloor) {
  auto paths = fetch({{"numpy", "numpy-1.26.4-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
                       "675d61ffbfa78604709862923189bad94014bef562cc35cf61d3a07bba02a7ed"},
                      {"numpy", "numpy-2.3.5-cp312-cp312-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl",
                       "0d8163f43acde9a73c2a33605353a4f1bc4798745a8b1d73183b28e5b435ae28"}});
  if (paths.size() != 2) GTEST_SKIP() << "PyPI not reachable";
  auto d = run_command(shell_quote(WC_BINARY) + " diff " + shell_quote(paths[0]) + " " + shell_quote(paths[1]) +
                       " --format json");
  EXPECT_EQ(d.exit_code, 1) << d.err;
  auto j = nlohmann::json::parse(d.out);
  ASSERT_EQ(j["pairs"].size(), 1u) << d.out.substr(0, 2000);
  std::string findings = j["pairs"][0]["findings"].dump();
  EXPECT_NE(findings.find("platform floor raised: manylinux_2_17_x86_64.manylinux2014_x86_64 -> "
                          "manylinux_2_27_x86_64.manylinux_2_28_x86_64"),
            std::string::npos)
      << findings;
  EXPECT_NE(findings.find("Requires-Python raised: '>=3.9' -> '>=3.11'"), std::string::npos) << findings;
  bool moved = false;
  for (const auto& b : j["pairs"][0]["changes"]["binaries"])
    moved |= b.value("old_path", "").starts_with("numpy/core/_multiarray_umath") &&
             b["path"].get<std::string>().starts_with("numpy/_core/_multiarray_umath");
  EXPECT_TRUE(moved) << j["pairs"][0]["changes"]["binaries"].dump().substr(0, 3000);
}

// torch 2.10.0 -> 2.11.0 on macOS arm64 (80 MB each): libtorch_cpu.dylib and libc10.dylib lost
// exports that extensions built against 2.10 bind (WC711); ctest -L large.
TEST(RealWheelsLarge, TorchMacReleasesLoseExports) {
  if (!std::getenv("WHEELCHECK_LARGE_WHEELS")) GTEST_SKIP() << "large wheels: ctest -L large";
  auto paths = fetch({{"torch", "torch-2.10.0-2-cp312-none-macosx_11_0_arm64.whl",
                       "13ec4add8c3faaed8d13e0574f5cd4a323c11655546f91fbe6afa77b57423574"},
                      {"torch", "torch-2.11.0-cp312-cp312-macosx_11_0_arm64.whl",
                       "4b5866312ee6e52ea625cd211dcb97d6a2cdc1131a5f15cc0d87eec948f6dd34"}});
  if (paths.size() != 2) GTEST_SKIP() << "PyPI not reachable";
  auto d = run_command(shell_quote(WC_BINARY) + " diff " + shell_quote(paths[0]) + " " + shell_quote(paths[1]));
  EXPECT_EQ(d.exit_code, 1) << d.err;
  EXPECT_NE(d.out.find("error WC711  torch/lib/libtorch_cpu.dylib: 20 exported names removed"), std::string::npos)
      << d.out.substr(0, 4000);
  EXPECT_NE(d.out.find("error WC711  torch/lib/libc10.dylib: 4 exported names removed"), std::string::npos);
}

}  // namespace
}  // namespace wc
