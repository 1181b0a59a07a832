// Real wheels from PyPI, pinned by sha256 in tests/real_wheels.json and downloaded at test time
// into ~/.cache/wheelcheck-tests/real (skipped when PyPI cannot be reached). Each check states the
// verdict, the exact rules (worst severity each), message fragments and the justified platform
// tag; the large ones (torch, the NVIDIA wheels) run with WHEELCHECK_LARGE_WHEELS=1 (ctest -L
// large). auditwheel's own bundled test wheels check the justified tag against `auditwheel show`.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "support/test_support.h"
#include "util/json_text.h"

namespace wc {
namespace {

using nlohmann::json;
using testing::run_command;
using testing::run_wheelcheck;
using testing::shell_quote;

const json& manifest() {
  static const json j = read_json_file(std::string(WC_SOURCE_DIR) + "/tests/real_wheels.json");
  return j;
}

std::string cache_dir() { return testing::real_wheel_cache(); }
std::string fetch(const std::vector<std::string>& names, bool* offline) {
  return testing::fetch_real_wheels(names, offline);
}

std::string basename_of(const std::string& p) { return p.substr(p.rfind('/') + 1); }

void run_checks(bool large) {
  size_t ran = 0;
  for (const auto& check : manifest()["checks"]) {
    if (check.value("large", false) != large) continue;
    std::vector<std::string> names = check["files"];
    bool offline = false;
    std::string err = fetch(names, &offline);
    if (offline) GTEST_SKIP() << "cannot download wheels from PyPI: " << err;
    ASSERT_EQ(err, "") << err;
    std::vector<std::string> args{"check", "-q", "--format", "json", "--policy", check.value("policy", "default")};
    for (const auto& n : names) args.push_back(cache_dir() + "/" + n);
    auto r = run_wheelcheck(args);
    ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << check["why"] << "\n" << r.err;
    auto report = json::parse(r.out);
    for (const auto& [file, want] : check["expect"].items()) {
      SCOPED_TRACE(file + ": " + check["why"].get<std::string>());
      const json* wheel = nullptr;
      for (const auto& w : report["wheels"])
        if (basename_of(w["path"]) == file) wheel = &w;
      ASSERT_TRUE(wheel) << "not in the report";
      std::map<std::string, std::string> rules;
      std::map<std::string, int> counts;
      std::string text;
      for (const auto& f : (*wheel)["findings"]) {
        std::string rule = f["rule"], sev = f["severity"];
        if (rules[rule] != "error") rules[rule] = sev;
        ++counts[rule];
        text += rule + " " + sev + " " + f.value("entry", "") + ": " + f["message"].get<std::string>() + "\n";
      }
      EXPECT_EQ((*wheel)["verdict"], want["verdict"]) << text;
      auto want_rules = want["rules"].get<std::map<std::string, std::string>>();
      EXPECT_EQ(rules, want_rules) << text;
      const json messages = want.value("messages", json::array()), count = want.value("count", json::object());
      for (const auto& m : messages)
        EXPECT_NE(text.find(m.get<std::string>()), std::string::npos)
            << "no finding says '" << m.get<std::string>() << "':\n"
            << text;
      for (const auto& [rule, n] : count.items()) EXPECT_EQ(counts[rule], n.get<int>()) << rule << "\n" << text;
      if (want.contains("justified")) {
        auto i = run_wheelcheck({"inspect", "--format", "json", cache_dir() + "/" + file});
        EXPECT_EQ(json::parse(i.out)["wheels"][0]["justified_platform_tag"], want["justified"]);
      }
    }
    ++ran;
  }
  EXPECT_GT(ran, 0u);
}

TEST(RealWheels, Verdicts) { run_checks(false); }

// A verdict does not depend on unrelated wheels: each wheel's findings in the run of its own check
// equal its findings in one run of every (default-policy) real wheel together.
std::map<std::string, std::vector<std::string>> findings_by_wheel(const std::vector<std::string>& files) {
  std::vector<std::string> args{"check", "--format", "json", "-j", "2"};
  for (const auto& n : files) args.push_back(cache_dir() + "/" + n);
  auto r = run_wheelcheck(args);
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  std::map<std::string, std::vector<std::string>> out;
  if (r.exit_code != 0 && r.exit_code != 1) return out;
  const json report = json::parse(r.out);  // kept: a range over a temporary's member would dangle
  for (const auto& w : report["wheels"]) {
    auto& v = out[basename_of(w["path"])];
    v.push_back(w["verdict"]);
    for (const auto& f : w["findings"])
      v.push_back(f["rule"].get<std::string>() + " " + f["severity"].get<std::string>() + " " + f.value("entry", "") +
                  ": " + f["message"].get<std::string>());
  }
  return out;
}

TEST(RealWheels, VerdictsDoNotDependOnUnrelatedWheels) {
  std::vector<std::vector<std::string>> groups;
  std::vector<std::string> all;
  for (const auto& check : manifest()["checks"]) {
    if (check.value("large", false) || check.value("policy", "default") != "default") continue;
    groups.push_back(check["files"]);
    for (const auto& f : groups.back())
      if (std::find(all.begin(), all.end(), f) == all.end()) all.push_back(f);
  }
  bool offline = false;
  std::string err = fetch(all, &offline);
  if (offline) GTEST_SKIP() << "cannot download wheels from PyPI: " << err;
  ASSERT_EQ(err, "") << err;
  auto together = findings_by_wheel(all);
  ASSERT_EQ(together.size(), all.size());
  for (const auto& g : groups)
    for (const auto& [file, alone] : findings_by_wheel(g)) EXPECT_EQ(alone, together[file]) << file;
}

TEST(RealWheelsLarge, Verdicts) {
  if (!std::getenv("WHEELCHECK_LARGE_WHEELS"))
    GTEST_SKIP() << "large wheels (torch, NVIDIA's CUDA wheels): set WHEELCHECK_LARGE_WHEELS=1 or run ctest -L large";
  run_checks(true);
}

// The tag a wheel's binaries justify equals auditwheel show's headline on auditwheel's own test
// wheels (linux_* there is null here: no portable tag fits), except where the manifest explains
// from the bytes why auditwheel is wrong; with auditwheel installable, also live, side by side.
TEST(RealWheels, JustifiedTagMatchesAuditwheel) {
  const json& aw = manifest()["auditwheel"];
  bool offline = false;
  std::string err = fetch({aw["sdist"]}, &offline);
  if (offline) GTEST_SKIP() << "cannot download auditwheel's sdist from PyPI: " << err;
  ASSERT_EQ(err, "") << err;
  // Extracted and installed once into the shared cache, under its lock (tools/wc_cache.py).
  std::string cache_tool = "python3 " + shell_quote(std::string(WC_SOURCE_DIR) + "/tools/wc_cache.py");
  auto extracted =
      run_command(cache_tool + " extract " + shell_quote(cache_dir() + "/" + aw["sdist"].get<std::string>()) + " " +
                  shell_quote(aw["dir"].get<std::string>()) + " " + shell_quote(cache_dir()));
  ASSERT_EQ(extracted.exit_code, 0) << extracted.err;
  std::string root = cache_dir() + "/" + aw["dir"].get<std::string>();
  // auditwheel itself, in a virtual environment of the cache (optional: the table stands alone).
  std::string venv = cache_dir() + "/auditwheel-venv";
  bool live =
      run_command("timeout 1800 " + cache_tool + " venv " + shell_quote(venv) + " auditwheel==6.8.2").exit_code == 0;
  for (const auto& [rel, want] : aw["justified"].items()) {
    SCOPED_TRACE(rel);
    auto r = run_wheelcheck({"inspect", "--format", "json", root + "/" + rel});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(json::parse(r.out)["wheels"][0]["justified_platform_tag"], want);
    if (!live || aw["exceptions"].contains(rel)) continue;
    auto show = run_command(shell_quote(venv + "/bin/auditwheel") + " show " + shell_quote(root + "/" + rel));
    std::string out = show.out;
    for (auto& c : out)
      if (c == '\n') c = ' ';
    auto q = out.find("platform tag: \"");
    std::string theirs = q == std::string::npos ? "" : out.substr(q + 15, out.find('"', q + 15) - q - 15);
    if (theirs.empty() || theirs.rfind("linux_", 0) == 0)
      EXPECT_TRUE(want.is_null()) << "auditwheel: " << (theirs.empty() ? "none" : theirs);
    else
      EXPECT_EQ(want, theirs);
  }
}

}  // namespace
}  // namespace wc
