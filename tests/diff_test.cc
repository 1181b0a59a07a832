// `wheelcheck diff` and `check --baseline`'s regression rules (WC710-WC716), on wheels built here:
// libraries from gcc whose exports, symbol versions and needs change between two "nights", a
// report written by one night and read as the next night's baseline, and hostile baselines.
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "rules/regressions.h"
#include "rules/release_facts.h"
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
  std::vector<std::string> names{"_ZN3c104gone", "_ZN3c104kept", "_ZN3c104keptEv", "foo"};
  auto packed = pack_names(names);
  auto back = unpack_names(packed);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, names);
  EXPECT_FALSE(unpack_names("not base64!"));
  EXPECT_FALSE(unpack_names("AAAA"));  // base64, not zstd
  nlohmann::json j = {{"path", "x/libx.so"}, {"exports", {{"count", 3}, {"names_zstd", packed}}}};
  EXPECT_THROW(binary_summary_from_json(j), std::runtime_error);  // the count disagrees
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

}  // namespace
}  // namespace wc
