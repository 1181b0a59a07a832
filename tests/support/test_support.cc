#include "support/test_support.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "facts/analyze.h"
#include "facts/spill.h"
#include "pipeline/check.h"
#include "policy/policy.h"
#include "rules/loader/install_set.h"
#include "util/json_text.h"
#include "wheel_builder.h"

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

ScopedEnv::ScopedEnv(std::string name, const std::string& value) : name_(std::move(name)) {
  if (const char* was = std::getenv(name_.c_str())) had_ = true, was_ = was;
  set(value);
}

ScopedEnv::~ScopedEnv() {
  if (had_)
    setenv(name_.c_str(), was_.c_str(), 1);
  else
    unsetenv(name_.c_str());
}

void ScopedEnv::set(const std::string& value) const { setenv(name_.c_str(), value.c_str(), 1); }

namespace {

int free_port() {
  int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  int port = 0;
  if (s >= 0 && ::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len) == 0)
    port = ntohs(a.sin_port);
  if (s >= 0) ::close(s);
  return port;
}

bool accepts(int port) {
  int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool ok = s >= 0 && ::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  if (s >= 0) ::close(s);
  return ok;
}

}  // namespace

ChildServer::ChildServer(std::vector<std::string> argv, const std::string& cwd) {
  for (int attempt = 0; attempt < 3 && pid_ <= 0; ++attempt) {
    port_ = free_port();
    if (!port_) return;
    std::vector<std::string> args = argv;
    for (auto& a : args)
      for (size_t at; (at = a.find("{port}")) != std::string::npos;) a.replace(at, 6, std::to_string(port_));
    pid_t pid = ::fork();
    if (pid == 0) {
      if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) _exit(127);
      std::freopen("/dev/null", "w", stdout);
      std::freopen("/dev/null", "w", stderr);
      std::vector<char*> cargs;
      for (auto& a : args) cargs.push_back(a.data());
      cargs.push_back(nullptr);
      ::execvp(cargs[0], cargs.data());
      _exit(127);
    }
    pid_ = pid;
    for (int i = 0; i < 100; ++i) {
      if (accepts(port_)) return;
      int st;
      if (::waitpid(pid_, &st, WNOHANG) == pid_) break;  // it died (port taken, binary missing)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
}

ChildServer::~ChildServer() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  for (int i = 0; i < 40; ++i) {
    if (::waitpid(pid_, nullptr, WNOHANG) == pid_) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, nullptr, 0);
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string fake_interpreter(const TempDir& dir, const char* script, const std::string& mode) {
  std::string py = dir.file("fake_interpreter.py"), path = dir.file("python-" + mode);
  std::ofstream(py, std::ios::binary) << script;
  std::ofstream(path, std::ios::binary) << "#!/bin/sh\nexec python3 " << shell_quote(py) << " " << mode << "\n";
  ::chmod(path.c_str(), 0755);
  return path;
}

void write_sdist(const std::string& path, const std::string& top, const std::string& pkg_info) {
  static const char* script =
      "import io, sys, tarfile\n"
      "with tarfile.open(sys.argv[1], 'w:gz') as t:\n"
      "    for name, data in ((sys.argv[2] + '/PKG-INFO', sys.argv[3].encode()), (sys.argv[2] + '/src/m.py', b'x = "
      "1\\n')):\n"
      "        ti = tarfile.TarInfo(name); ti.size = len(data); t.addfile(ti, io.BytesIO(data))\n";
  RunResult r = run_command("python3 -c " + shell_quote(script) + " " + shell_quote(path) + " " + shell_quote(top) +
                            " " + shell_quote(pkg_info));
  if (r.exit_code != 0) ADD_FAILURE() << "writing the sdist " << path << ": " << r.err;
}

std::string schema_complaints(const std::vector<std::string>& files, bool* unavailable) {
  const char* home = std::getenv("HOME");
  std::string cache = std::string(home && *home ? home : "/tmp") + "/.cache/wheelcheck-tests/schemas";
  std::string cmd = "python3 " + shell_quote(std::string(WC_SOURCE_DIR) + "/tests/tools/validate_reports.py") + " " +
                    shell_quote(cache);
  for (const auto& f : files) cmd += " " + shell_quote(f);
  RunResult r = run_command(cmd);
  *unavailable = r.exit_code == 3;
  if (r.exit_code == 0) return "";
  return r.out + r.err + (r.out.empty() && r.err.empty() ? "validator exit " + std::to_string(r.exit_code) : "");
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

std::vector<Finding> judge_first_of_run(const std::vector<std::pair<std::vector<uint8_t>, std::string>>& wheels,
                                        const Policy& policy) {
  std::vector<WheelFacts> run, cut;
  std::vector<AloneVerdict> alone;
  for (const auto& [zip, filename] : wheels) {
    run.push_back(facts_of(zip, filename));
    cut.push_back(facts_of(zip, filename));
    alone.push_back(judge_alone(cut.back(), policy));
    keep_for_install_sets(cut.back());
  }
  auto whole = judge_wheel(run[0], run, policy).findings;
  AloneVerdict first = alone[0];  // judged twice
  auto from_cut = judge_in_set(std::move(alone[0]), cut[0], policy,
                               install_set_for(cut[0], cut, nullptr, policy.cuda.import_loaded))
                      .findings;
  EXPECT_EQ(dump(from_cut), dump(whole));
  // Then as a run of several wheels keeps them: parked in the spill file, their install directories
  // taken first; read back only when the set being judged reaches them (the index's hook).
  FactsSpill spill;
  std::vector<FactsSpill::Place> at;
  std::vector<std::set<std::string>> dirs;
  for (auto& f : cut) {
    dirs.push_back(install_dirs(f));
    at.push_back(spill.park(f));
    EXPECT_TRUE(f.entries.empty() && f.binaries.empty());
  }
  std::vector<bool> loaded(cut.size());
  auto load = [&](size_t i) {
    if (!loaded[i]) spill.restore(cut[i], at[i]);
    loaded[i] = true;
  };
  InstallSetIndex index(cut, dirs, load);
  load(0);
  auto from_parked =
      judge_in_set(std::move(first), cut[0], policy, install_set_for(cut[0], cut, &index, policy.cuda.import_loaded))
          .findings;
  EXPECT_EQ(dump(from_parked), dump(whole));
  return whole;
}

std::vector<Finding> findings_of(const std::vector<uint8_t>& zip, const std::string& filename,
                                 const std::string& policy) {
  static std::map<std::string, Policy> cache;  // shipped policies only; files may change between tests
  bool shipped = shipped_policy_text(policy) != nullptr;
  if (shipped && !cache.count(policy)) cache.emplace(policy, load_policy(policy));
  Policy p = shipped ? cache.at(policy) : load_policy(policy);
  // WHEELCHECK_TEST_KEEP=DIR keeps each wheel judged here as DIR/<test>-<n>-<filename>, to run a
  // peer (pip, zipfile, warehouse's zipfiles.py) on the very bytes a test judged.
  if (const char* keep = std::getenv("WHEELCHECK_TEST_KEEP"); keep && *keep) {
    static int n = 0;
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string base = std::string(keep) + "/" +
                       (info ? std::string(info->test_suite_name()) + "." + info->name() : "") + "-" +
                       std::to_string(n++) + "-" + filename;
    std::ofstream(base, std::ios::binary).write(reinterpret_cast<const char*>(zip.data()), std::streamsize(zip.size()));
  }
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

std::string gcc_shared_object(const TempDir& dir, const std::string& name, const std::string& src,
                              const std::string& flags) {
  write_file(dir.file(name + ".c"), std::vector<uint8_t>(src.begin(), src.end()));
  auto r = run_command("gcc -O1 -shared -fPIC " + shell_quote(dir.file(name + ".c")) + " -o " +
                       shell_quote(dir.file(name)) + " -L" + shell_quote(dir.path()) + " " + flags);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto b = read_file(dir.file(name));
  return std::string(b.begin(), b.end());
}

std::vector<uint8_t> gxx_versioned_library(const TempDir& dir, const std::string& src, const std::string& flags) {
  const std::string map = "V_1 { global: *; };\nV_2 { global: f; } V_1;\n";
  write_file(dir.file("v.map"), std::vector<uint8_t>(map.begin(), map.end()));
  write_file(dir.file("l.cc"), std::vector<uint8_t>(src.begin(), src.end()));
  auto r =
      run_command("g++ -O1 -shared -fPIC " + shell_quote(dir.file("l.cc")) + " -o " + shell_quote(dir.file("l.so")) +
                  " -Wl,--version-script," + shell_quote(dir.file("v.map")) + " " + flags);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return read_file(dir.file("l.so"));
}

std::vector<std::string> definitions_of(const DynamicSymbols& d, std::string_view name) {
  std::vector<std::string> out;
  d.for_each_definition(name, DynamicSymbols::hash(name), [&](const DynamicSymbols::Symbol& s) {
    out.push_back(std::string(d.version_name(s.version)) + (s.hidden ? " hidden" : ""));
    return false;
  });
  std::sort(out.begin(), out.end());
  return out;
}

std::string dump(const std::vector<Finding>& fs) {
  std::string s;
  for (const auto& f : fs) s += f.rule + " [" + severity_name(f.severity) + "] " + f.entry + ": " + f.message + "\n";
  return s.empty() ? "(no findings)\n" : s;
}

bool says(const std::vector<Finding>& fs, const std::string& text) { return dump(fs).find(text) != std::string::npos; }

const SigstoreAssets& sigstore_assets() {
  static const SigstoreAssets a = [] {
    SigstoreAssets out;
    const char* home = std::getenv("HOME");
    const std::string cache = std::string(home ? home : "/tmp") + "/.cache/wheelcheck-tests/sigstore";
    auto r = run_command("timeout 900 python3 " +
                         shell_quote(std::string(WC_SOURCE_DIR) + "/tests/tools/sigstore_assets.py") + " " +
                         shell_quote(cache));
    if (r.exit_code != 0) {
      out.skip = "the pypi-attestations and sigstore sdists cannot be had: " + r.err;
      if (r.exit_code != 3 && r.exit_code != 124) out.skip = "FAIL " + out.skip;
      return out;
    }
    std::istringstream lines(r.out);
    std::getline(lines, out.dir);
    std::getline(lines, out.roots);
    return out;
  }();
  return a;
}

std::vector<std::string> range_server_argv() {
  return {"python3", std::string(WC_SOURCE_DIR) + "/tests/tools/range_server.py", "{port}"};
}

std::string python_with_packaging() {
  for (const char* py : {"/usr/bin/python3", "python3"}) {
    if (run_command(std::string(py) + " -c 'import packaging.utils, packaging.version'").exit_code == 0) return py;
  }
  return "";
}

std::string real_wheel_cache() {
  const char* home = std::getenv("HOME");
  std::string dir = std::string(home && *home ? home : "/tmp") + "/.cache/wheelcheck-tests/real";
  std::filesystem::create_directories(dir);
  return dir;
}

std::string fetch_real_wheels(const std::vector<std::string>& names, bool* offline) {
  static const nlohmann::json manifest = read_json_file(std::string(WC_SOURCE_DIR) + "/tests/real_wheels.json");
  std::string args;
  for (const auto& f : manifest["files"]) {
    const std::string file = f["file"];
    const bool wanted =
        names.empty() ? !f.value("large", false) : std::find(names.begin(), names.end(), file) != names.end();
    if (wanted) args += " " + shell_quote(f["project"]) + " " + shell_quote(file) + " " + shell_quote(f["sha256"]);
  }
  auto r = run_command("timeout 1800 python3 " + shell_quote(std::string(WC_SOURCE_DIR) + "/tools/fetch_wheels.py") +
                       " " + shell_quote(real_wheel_cache()) + args);
  *offline = r.exit_code == 3 || r.exit_code == 124;
  return r.exit_code == 0 ? "" : r.err.empty() ? "tools/fetch_wheels.py exited " + std::to_string(r.exit_code) : r.err;
}

}  // namespace wc::testing
