#include "support/test_support.h"

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "facts/analyze.h"
#include "policy/policy.h"

namespace wc::testing {

namespace fs = std::filesystem;

TempDir::TempDir() {
  std::random_device rd;
  fs::path base = fs::temp_directory_path() / "wheelcheck-tests";
  fs::create_directories(base);
  path_ = (base / ("t" + std::to_string(::getpid()) + "-" + std::to_string(rd()))).string();
  fs::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

RunResult run_command(const std::string& cmd) {
  TempDir tmp;
  std::string out = tmp.file("out"), err = tmp.file("err");
  int status = std::system((cmd + " >" + shell_quote(out) + " 2>" + shell_quote(err)).c_str());
  RunResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  auto slurp = [](const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

RunResult run_wheelcheck(const std::vector<std::string>& args) {
  std::string cmd = "env -u GITHUB_STEP_SUMMARY NO_COLOR=1 " + shell_quote(WC_BINARY);
  for (const auto& a : args) cmd += " " + shell_quote(a);
  return run_command(cmd);
}

WheelFacts facts_of(const std::vector<uint8_t>& zip, const std::string& filename) {
  MemorySource src(filename, zip);
  return analyze_wheel(src, analyze_options_for(load_policy("default")));
}

std::vector<Finding> findings_of(const std::vector<uint8_t>& zip, const std::string& filename, const std::string& policy) {
  static std::map<std::string, Policy> cache;  // shipped policies only; files may change between tests
  bool shipped = shipped_policy_text(policy) != nullptr;
  if (shipped && !cache.count(policy)) cache.emplace(policy, load_policy(policy));
  Policy p = shipped ? cache.at(policy) : load_policy(policy);
  MemorySource src(filename, zip);
  return check_wheel(analyze_wheel(src, analyze_options_for(p)), p).findings;
}

std::vector<std::string> rule_ids(const std::vector<Finding>& fs) {
  std::vector<std::string> ids;
  for (const auto& f : fs) ids.push_back(f.rule);
  return ids;
}

bool has_rule(const std::vector<Finding>& fs, const std::string& id) {
  for (const auto& f : fs)
    if (f.rule == id) return true;
  return false;
}

std::string dump(const std::vector<Finding>& fs) {
  std::string s;
  for (const auto& f : fs) s += f.rule + " [" + severity_name(f.severity) + "] " + f.entry + ": " + f.message + "\n";
  return s.empty() ? "(no findings)\n" : s;
}

std::string python_with_packaging() {
  for (const char* py : {"/usr/bin/python3", "python3"}) {
    if (run_command(std::string(py) + " -c 'import packaging.utils, packaging.version'").exit_code == 0) return py;
  }
  return "";
}

}  // namespace wc::testing
