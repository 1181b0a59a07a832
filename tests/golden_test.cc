// Nothing judged less (issue 48): every finding on the test corpus, held against a record kept in
// the repository. The corpus is the real wheels and sdists of tests/real_wheels.json (each check
// group under its policy, then all the default-policy ones in one run, as a nightly reads them) and
// the hostile archives checked in under fuzz/corpus (zips, sdists, and each ELF of the elf corpus
// as a wheel's extension module). A change that adds, loses or rewords a finding, or moves its
// severity, fails here with the lines that differ. When the change is meant,
//
//   WHEELCHECK_UPDATE_GOLDEN=1 ./build/wheelcheck_tests --gtest_filter='Golden.*'
//
// rewrites tests/golden/*.json, and the commit's diff shows every finding it changed.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "pipeline/check.h"
#include "support/test_support.h"
#include "util/json_text.h"
#include "wheel_builder.h"

namespace wc {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::TempDir;
using testing::WheelBuilder;

// file (its path under the run's folder) -> its verdict and findings ("RULE severity entry: message"), sorted: the
// order rules report in is no promise. `dir` is written as <dir> wherever a message names it.
using Findings = std::map<std::string, std::vector<std::string>>;

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  if (from.empty()) return;
  for (size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size()) s.replace(at, from.size(), to);
}

Findings check_findings(const std::vector<std::string>& files, const std::string& policy, const std::string& dir) {
  std::vector<std::string> args{"check", "--format", "json", "-j", "2", "--policy", policy};
  args.insert(args.end(), files.begin(), files.end());
  auto r = testing::run_wheelcheck(args);
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  Findings out;
  if (r.exit_code != 0 && r.exit_code != 1) return out;
  const json report = json::parse(r.out);
  for (const auto& w : report["wheels"]) {
    // Named by the path under `dir` (two corpus files may hold wheels of one name).
    const std::string path = w["path"];
    auto& lines = out[path.rfind(dir + "/", 0) == 0 ? path.substr(dir.size() + 1) : path];
    for (const auto& f : w["findings"]) {
      std::string line = f["rule"].get<std::string>() + " " + f["severity"].get<std::string>() + " " +
                         f.value("entry", "") + ": " + f["message"].get<std::string>();
      replace_all(line, dir, "<dir>");
      lines.push_back(line);
    }
    std::sort(lines.begin(), lines.end());
    lines.insert(lines.begin(), "verdict " + w["verdict"].get<std::string>());
  }
  return out;
}

// What differs between the record and this run, one line per finding gained or lost.
std::string difference(const json& want, const json& got) {
  std::string out;
  std::set<std::string> keys;
  for (const auto& [k, v] : want.items()) keys.insert(k);
  for (const auto& [k, v] : got.items()) keys.insert(k);
  for (const auto& run : keys) {
    const json w = want.value(run, json::object()), g = got.value(run, json::object());
    std::set<std::string> files;
    for (const auto& [f, v] : w.items()) files.insert(f);
    for (const auto& [f, v] : g.items()) files.insert(f);
    for (const auto& file : files) {
      const auto a = w.value(file, std::vector<std::string>{}), b = g.value(file, std::vector<std::string>{});
      std::multiset<std::string> sa(a.begin(), a.end()), sb(b.begin(), b.end());
      for (const auto& x : sa)
        if (sb.count(x) < sa.count(x)) out += "[" + run + "] " + file + ": lost    " + x + "\n";
      for (const auto& x : sb)
        if (sa.count(x) < sb.count(x)) out += "[" + run + "] " + file + ": gained  " + x + "\n";
    }
  }
  return out;
}

// Compares `got` (run -> Findings) with tests/golden/NAME, or rewrites it under
// WHEELCHECK_UPDATE_GOLDEN=1.
void expect_golden(const std::string& name, const json& got) {
  const std::string path = std::string(WC_SOURCE_DIR) + "/tests/golden/" + name;
  const char* update = std::getenv("WHEELCHECK_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    fs::create_directories(fs::path(path).parent_path());
    std::ofstream(path) << got.dump(1) << "\n";
    std::cout << "rewrote " << path << "\n";
    return;
  }
  ASSERT_TRUE(fs::exists(path)) << path << " is missing: WHEELCHECK_UPDATE_GOLDEN=1 writes it";
  const json want = read_json_file(path);
  const std::string diff = difference(want, got);
  EXPECT_EQ(diff, "") << "the findings on the corpus changed (" << path
                      << "); if that is meant, rerun with WHEELCHECK_UPDATE_GOLDEN=1 and commit the record:\n"
                      << diff;
}

TEST(Golden, RealWheelFindings) {
  const json manifest = read_json_file(std::string(WC_SOURCE_DIR) + "/tests/real_wheels.json");
  bool offline = false;
  std::string err = testing::fetch_real_wheels({}, &offline);
  if (offline) GTEST_SKIP() << "cannot download wheels from PyPI: " << err;
  ASSERT_EQ(err, "") << err;
  const std::string dir = testing::real_wheel_cache();
  json got = json::object();
  std::vector<std::string> together;
  for (const auto& check : manifest["checks"]) {
    if (check.value("large", false)) continue;
    const std::string policy = check.value("policy", "default");
    std::string key = policy + ":";
    std::vector<std::string> paths;
    for (const auto& f : check["files"]) {
      key += " " + f.get<std::string>();
      paths.push_back(dir + "/" + f.get<std::string>());
      if (policy == "default" && std::find(together.begin(), together.end(), paths.back()) == together.end())
        together.push_back(paths.back());
    }
    got[key] = check_findings(paths, policy, dir);
  }
  got["default: every default-policy file in one run"] = check_findings(together, "default", dir);
  ASSERT_GT(together.size(), 20u);
  expect_golden("real_findings.json", got);
}

TEST(Golden, HostileCorpusFindings) {
  const fs::path corpus = fs::path(WC_SOURCE_DIR) / "fuzz" / "corpus";
  TempDir tmp;
  std::vector<std::string> files;
  auto stem = [](std::string s) {
    std::replace_if(
        s.begin(), s.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
    return s.substr(0, 60);
  };
  auto each = [&](const std::string& target, auto&& write) {
    std::vector<fs::path> inputs;
    for (const auto& e : fs::directory_iterator(corpus / target)) inputs.push_back(e.path());
    std::sort(inputs.begin(), inputs.end());
    ASSERT_FALSE(inputs.empty()) << corpus / target;
    for (const auto& p : inputs) files.push_back(write(p, testing::read_file(p.string())));
  };
  // Archives as wheels (the installer corpus starts with the wheel's file name and a newline).
  for (const char* target : {"zip", "inflate", "installer"})
    each(target, [&](const fs::path& p, std::vector<uint8_t> bytes) {
      std::string name = stem(p.filename().string()) + "-1.0-py3-none-any.whl";
      if (std::string(target) == "installer") {
        auto nl = std::find(bytes.begin(), bytes.end(), '\n');
        name = "installer_" + std::string(bytes.begin(), nl);
        bytes.erase(bytes.begin(), nl + 1);
      }
      std::string path = tmp.file(std::string(target) + "_" + stem(p.filename().string()));
      fs::create_directories(path);
      path += "/" + name;
      testing::write_file(path, bytes);
      return path;
    });
  each("sdist", [&](const fs::path& p, const std::vector<uint8_t>& bytes) {
    std::string path = tmp.file(stem(p.filename().string()) + "-1.0.tar.gz");
    testing::write_file(path, bytes);
    return path;
  });
  // Each hostile ELF as the extension module of a manylinux wheel: the binary rules meet it.
  each("elf", [&](const fs::path& p, const std::vector<uint8_t>& bytes) {
    std::string project = "elf_" + p.filename().string().substr(0, 12);
    return WheelBuilder(project, "1.0", "cp312-cp312-manylinux_2_17_x86_64")
        .purelib(false)
        .add(project + "/_ext.cpython-312-x86_64-linux-gnu.so", std::string(bytes.begin(), bytes.end()))
        .write(tmp.path());
  });
  json got = json::object();
  got["default"] = check_findings(files, "default", tmp.path());
  ASSERT_EQ(got["default"].size(), files.size());
  expect_golden("hostile_findings.json", got);
}

// The run judges each wheel alone as soon as it is read, then cuts its facts down to what install
// sets read (keep_for_install_sets) and judges the install-set rules last. On every small real
// wheel, in one run: each verdict equals check_wheel's over the whole facts, finding for finding,
// in order (a set rule that reads something the cut drops fails here).
TEST(Golden, CutFactsJudgeAsWholeFacts) {
  bool offline = false;
  std::string err = testing::fetch_real_wheels({}, &offline);
  if (offline) GTEST_SKIP() << "cannot download wheels from PyPI: " << err;
  ASSERT_EQ(err, "") << err;
  std::vector<std::string> paths;
  for (const auto& e : fs::directory_iterator(testing::real_wheel_cache()))
    if (e.path().extension() == ".whl" && e.file_size() < (50u << 20)) paths.push_back(e.path().string());
  std::sort(paths.begin(), paths.end());
  ASSERT_GT(paths.size(), 20u);
  const Policy policy = load_policy("default");
  const AnalyzeOptions opt = analyze_options_for(policy);
  std::vector<WheelFacts> whole = analyze_all(paths, opt, 2), cut = analyze_all(paths, opt, 2);
  std::vector<AloneVerdict> alone;
  for (auto& f : cut) {
    alone.push_back(judge_alone(f, policy));
    keep_for_install_sets(f);
  }
  InstallSetIndex whole_index(whole), cut_index(cut);
  size_t findings = 0;
  for (size_t i = 0; i < paths.size(); ++i) {
    SCOPED_TRACE(paths[i]);
    // The sets as a run makes them, import-loaded providers (cuda.import_loaded) included.
    const auto& loaded = policy.cuda.import_loaded;
    auto want = check_wheel(whole[i], policy, install_set_for(whole[i], whole, &whole_index, loaded)).findings;
    auto got =
        judge_in_set(std::move(alone[i]), cut[i], policy, install_set_for(cut[i], cut, &cut_index, loaded)).findings;
    EXPECT_EQ(testing::dump(got), testing::dump(want));
    findings += want.size();
  }
  EXPECT_GT(findings, 0u);
}

}  // namespace
}  // namespace wc
