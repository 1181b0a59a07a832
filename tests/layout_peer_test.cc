// check-wheel-contents' layout checks (issue 31, "Layout"): the cases of the peer's own suite
// (jwodder/check-wheel-contents test/test_checking.py, each case naming its test) as wheels built
// here, judged by wheelcheck and, where the peer can be installed from PyPI, by check-wheel-contents
// 0.6.3 itself on the same files. The peer's verdict is the expectation; where wheelcheck departs
// from it, the case says so and why (`ours`).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "support/test_support.h"
#include "wheel_builder.h"

namespace wc {
namespace {

using namespace wc::testing;

// The peer's checks and the rules that answer them (W009 is WC212, whose counting differs: see
// README; it is judged by tests/rules_test.cc, not here).
const std::map<std::string, std::string> kRuleOf = {{"W001", "WC706"}, {"W002", "WC214"}, {"W003", "WC215"},
                                                    {"W004", "WC211"}, {"W005", "WC216"}, {"W006", "WC217"},
                                                    {"W007", "WC218"}, {"W008", "WC218"}, {"W010", "WC213"}};

struct File {
  File(const char* p) : path(p), content(path + "\n") {}  // the path as content: no two files alike
  File(const char* p, std::string c) : path(p), content(std::move(c)) {}
  std::string path, content;
};

struct LayoutCase {
  LayoutCase(const char* test, std::vector<File> fs, std::set<std::string> p)
      : peer_test(test), files(std::move(fs)), peer(std::move(p)) {}
  LayoutCase(const char* test, std::vector<File> fs, std::set<std::string> p, std::set<std::string> o, const char* w)
      : peer_test(test), files(std::move(fs)), peer(std::move(p)), ours(std::move(o)), why(w) {}
  const char* peer_test;
  std::vector<File> files;
  std::set<std::string> peer;                 // what check-wheel-contents reports (W009 left out)
  std::optional<std::set<std::string>> ours;  // wheelcheck's rules where they depart
  const char* why = "";
};

const std::vector<LayoutCase>& cases() {
  static const std::vector<LayoutCase> c = {
      // W001: bytecode anywhere; `.pyo` is bytecode too (default.json forbids `**/*.pyo` now).
      {"test_check_W001", {{"foo.py"}, {"foo.pyc"}}, {"W001", "W003"}},
      {"test_check_W001", {{"foo.py"}, {"foo.pyo"}}, {"W001", "W003"}},
      {"test_check_W001", {{"foo/__init__.py"}, {"foo/__pycache__/foo.cpython-36.pyc"}}, {"W001"}},
      {"test_check_W001",
       {{"foo.py"}, {"__pycache__/foo.cpython-36.pyc"}},
       {"W001", "W010"},
       std::set<std::string>{"WC706"},
       "a top-level __pycache__/ is the bytecode WC706 reports, not a data directory: WC213 would name the same "
       "entry a second time"},
      // W002: one content under two names; empty files are exempt.
      {"test_check_W002", {{"foo.py"}, {"foo/__init__.py", ""}, {"foo/duplicate.py", "foo.py\n"}}, {"W002"}},
      {"test_check_W002", {{"foo/__init__.py", ""}, {"foo/bar.py"}, {"foo/baz/__init__.py", ""}}, {}},
      {"test_check_W002",
       {{"foo/__init__.py", "# -*- coding: utf-8 -*-\n"}, {"foo/baz/__init__.py", "# -*- coding: utf-8 -*-\n"}},
       {}},
      {"test_check_W002",
       {{"foo/__init__.py", ""}, {"foo/__main__.py", "main()\n"}, {"foo-1.0.data/scripts/command", "main()\n"}},
       {"W002"}},
      {"test_check_W002",
       {{"foo.py"}, {"foo-1.0.dist-info/LICENSE", "MIT\n"}, {"foo-1.0.dist-info/NOTICE.txt", "MIT\n"}},
       {"W002"},
       std::set<std::string>{},
       "files in .dist-info directories are not compared: PEP 639 asks for copies of license files in "
       ".dist-info/licenses/, and pip and mypy ship every vendored LICENSE twice that way"},
      // W003: top-level files that are neither modules nor .pth files (case matters: foo.PY is none).
      {"test_check_W003",
       {{"foo.pth"},
        {"foo.py"},
        {"foo.so"},
        {"foo.cpython-38-x86_64-linux-gnu.so"},
        {"foo.cp38-win_amd64.pyd"},
        {"foo.abi3.so"}},
       {}},
      {"test_check_W003", {{"foo.PY"}, {"foo.py"}}, {"W003"}},
      {"test_check_W003", {{"foo.py"}, {"README.rst"}, {"METADATA"}, {"empty"}}, {"W003"}},
      {"test_check_W003", {{"foo-1.0.data/platlib/README.rst"}, {"foo.py"}}, {"W003"}},
      {"test_check_W003", {{"foo.py"}, {"foo-1.0.data/scripts/README.rst"}, {"foo-1.0.dist-info/README.rst"}}, {}},
      {"test_check_W003", {{"weirdo.txt/notpython.c"}, {"foo.py"}}, {"W010"}},
      // PEP 561: stubs belong inside packages; a top-level .pyi is no module (W003 says so too).
      {"test_check_W003 (PEP 561)", {{"foo.py"}, {"foo.pyi"}}, {"W003"}},
      // W004: every name on the way must be an identifier and no keyword, the module's own too.
      {"test_check_W004",
       {{"foo.py"},
        {"def.py"},
        {"has-hyphen.py"},
        {"extra.ext.py"},
        {"bar/__init__.py"},
        {"bar/is.py"},
        {"bar/hyphen-ated.py"},
        {"bar/glarch.quux.py"},
        {"with/foo.py"},
        {"in-dir/foo.py"},
        {"in.pkg/foo.py"}},
       {"W004"}},
      {"test_check_W004", {{"foo-1.0.data/platlib/has-hyphen.py"}}, {"W004"}},
      {"test_check_W004", {{"foo.py"}, {"foo-1.0.data/scripts/has-hyphen.py"}, {"foo-1.0.data/scripts/def.py"}}, {}},
      {"test_check_W004 (native library)",
       {{"foo/__init__.py"}, {"foo/lib/libx-1.2.so"}, {"foo/_c.so"}},
       {"W004"},
       std::set<std::string>{},
       "libx-1.2.so is a shared library by its name (lib prefix, version): the dynamic loader and ctypes load it by "
       "path, nobody imports it; WC211 judges extension modules named for an interpreter"},
      // W005: common names at the top of site-packages, not deeper and not in other schemes.
      {"test_check_W005", {{"build/foo.py"}, {"not_build/foo.py"}, {"build.py"}}, {"W005"}},
      {"test_check_W005", {{"quux/src/foo.py"}}, {}},
      {"test_check_W005", {{"foo.py"}, {"docs"}}, {"W003", "W005"}},
      {"test_check_W005", {{"foo-1.0.data/platlib/scripts/foo.py"}}, {"W005"}},
      {"test_check_W005", {{"foo.py"}, {"foo-1.0.data/scripts/lib/foo.py"}}, {}},
      {"test_check_W005", {{"foo-1.0.data/platlib/tests/test_x.py"}, {"foo/__init__.py"}}, {"W005"}},
      // W006: __init__.py at the top of site-packages.
      {"test_check_W006", {{"__init__.py"}}, {"W006"}},
      {"test_check_W006", {{"foo-1.0.data/platlib/__init__.py"}}, {"W006"}},
      {"test_check_W006", {{"foo/__init__.py"}, {"foo-1.0.dist-info/__init__.py"}}, {}},
      // W007/W008: nothing for site-packages; nothing beside the dist-info.
      {"test_check_W007", {}, {"W007", "W008"}},
      {"test_check_W007", {{"foo-1.0.data/scripts/foo.py"}}, {"W007"}},
      {"test_check_W007", {{"foo-1.0.data/platlib/foo.py"}}, {}},
      {"test_check_W008", {{"foo-1.0.dist-info/foo.py"}}, {"W007", "W008"}},
      // W010: a top-level directory with no module; a directory of stubs alone is none (PEP 561 names
      // stub-only packages `{name}-stubs`, and the name must be an identifier).
      {"test_check_W010", {{"foo/README.txt"}}, {"W010"}},
      {"test_check_W010", {{"foo-1.0.data/platlib/foo/README.txt"}}, {"W010"}},
      {"test_check_W010", {{"foo/foo.txt"}, {"foo/__init__.py"}, {"foo/bar/data.dat"}}, {}},
      {"test_check_W010", {{"foo/bar.pyi"}}, {"W010"}},
      {"test_check_W010", {{"foo-stubs/bar.pyi"}}, {}},
      {"test_check_W010", {{"-stubs/bar.pyi"}}, {"W010"}},
      {"test_check_W010", {{"class-stubs/bar.pyi"}}, {"W010"}},
  };
  return c;
}

std::string describe(const LayoutCase& c) {
  std::string s = c.peer_test + std::string(" [");
  for (const auto& f : c.files) s += " " + f.path;
  return s + " ]";
}

WheelBuilder wheel_of(const LayoutCase& c) {
  WheelBuilder b("foo", "1.0");
  for (const auto& f : c.files) b.add(f.path, f.content);
  return b;
}

// wheelcheck's answers among the rules of kRuleOf, with the layout rules on (they are off in default).
std::set<std::string> our_rules(const LayoutCase& c) {
  auto b = wheel_of(c);
  Policy p = load_policy("default");
  for (const char* r : {"WC211", "WC213", "WC214", "WC215", "WC216", "WC217", "WC218"})
    p.severity[r] = Severity::warning;
  std::set<std::string> out;
  for (const auto& f : check_wheel(facts_of(b.build(), b.filename()), p).findings)
    for (const auto& [w, rule] : kRuleOf)
      if (f.rule == rule) out.insert(rule);
  return out;
}

std::set<std::string> mapped(const std::set<std::string>& peer) {
  std::set<std::string> out;
  for (const auto& w : peer) out.insert(kRuleOf.at(w));
  return out;
}

std::string shown(const std::set<std::string>& s) {
  std::string out;
  for (const auto& x : s) out += (out.empty() ? "" : " ") + x;
  return "{" + out + "}";
}

TEST(LayoutPeer, EveryCaseGetsThePeersVerdictOrASaidDeparture) {
  size_t departures = 0;
  for (const auto& c : cases()) {
    std::set<std::string> want = c.ours.value_or(mapped(c.peer));
    departures += c.ours.has_value();
    EXPECT_EQ(shown(our_rules(c)), shown(want)) << describe(c) << (c.ours ? std::string(" (") + c.why + ")" : "");
  }
  EXPECT_EQ(departures, 3u);  // the three said above; a new one must be said too
}

// The peer, installed once into the shared test cache (tools/wc_cache.py); "" with `skip` set when
// the package index is offline.
std::string peer_binary(std::string* skip) {
  const char* home = std::getenv("HOME");
  std::string dir = std::string(home && *home ? home : "/tmp") + "/.cache/wheelcheck-tests";
  auto run = run_command("python3 " + shell_quote(std::string(WC_SOURCE_DIR) + "/tools/wc_cache.py") + " venv " +
                         shell_quote(dir + "/venv-check-wheel-contents-0.6.3") + " check-wheel-contents==0.6.3");
  if (run.exit_code != 0) {
    *skip = (run.exit_code == 3 ? "the package index is offline: " : "wc_cache.py venv failed: ") + run.err;
    return "";
  }
  std::string bin = run.out.substr(0, run.out.find_last_not_of("\n") + 1);
  return bin.substr(bin.rfind('\n') + 1) + "/check-wheel-contents";
}

// The table's `peer` column is what check-wheel-contents says of these very wheels.
TEST(LayoutPeer, TheTableIsWhatCheckWheelContentsSays) {
  std::string skip;
  std::string peer = peer_binary(&skip);
  if (peer.empty()) GTEST_SKIP() << skip;
  TempDir d;
  std::string args;
  std::vector<std::string> paths;
  for (size_t i = 0; i < cases().size(); ++i) {
    std::filesystem::create_directories(d.file(std::to_string(i)));
    paths.push_back(wheel_of(cases()[i]).write(d.file(std::to_string(i))));
    args += " " + shell_quote(paths.back());
  }
  auto run = run_command(shell_quote(peer) + " --no-config" + args);
  std::map<std::string, std::set<std::string>> said;  // wheel path -> checks
  std::istringstream lines(run.out);
  for (std::string line; std::getline(lines, line);) {
    auto at = line.find(".whl: W");
    if (at == std::string::npos || line.size() < at + 11) continue;
    std::string code = line.substr(at + 6, 4);
    if (code != "W009") said[line.substr(0, at + 4)].insert(code);
  }
  ASSERT_FALSE(said.empty()) << "no verdicts from " << peer << ": " << run.out << run.err;
  for (size_t i = 0; i < cases().size(); ++i)
    EXPECT_EQ(shown(said[paths[i]]), shown(cases()[i].peer)) << describe(cases()[i]);
}

// On the real wheels the real-wheel tests cached (tests/real_wheels_test.cc; skipped when there are
// none), wheelcheck and the peer agree wheel by wheel on the top-level checks: W003, W005, W006,
// W007 and W008, metapackages aside (an empty wheel with Requires-Dist: see WC218). (W002, W004 and
// W010 depart by design: .dist-info copies, libraries named
// libfoo-1.2.so, directories of native libraries; the table above says each.)
TEST(LayoutPeer, RealWheelsGetThePeersTopLevelVerdicts) {
  std::string skip;
  std::string peer = peer_binary(&skip);
  if (peer.empty()) GTEST_SKIP() << skip;
  const char* home = std::getenv("HOME");
  std::string dir = std::string(home && *home ? home : "/tmp") + "/.cache/wheelcheck-tests/real";
  std::vector<std::string> wheels;
  if (std::filesystem::is_directory(dir))
    for (const auto& e : std::filesystem::directory_iterator(dir))
      if (e.path().extension() == ".whl" && e.file_size() < (64u << 20)) wheels.push_back(e.path().string());
  if (wheels.empty()) GTEST_SKIP() << "no real wheels cached in " << dir;
  std::string args;
  for (const auto& w : wheels) args += " " + shell_quote(w);
  auto run = run_command(shell_quote(peer) + " --no-config --select W003,W005,W006,W007,W008" + args);
  std::map<std::string, std::set<std::string>> said;
  std::istringstream lines(run.out);
  for (std::string line; std::getline(lines, line);)
    if (auto at = line.find(".whl: W"); at != std::string::npos && line.size() >= at + 11)
      said[line.substr(0, at + 4)].insert(kRuleOf.at(line.substr(at + 6, 4)));
  Policy p = load_policy("default");
  for (const char* r : {"WC215", "WC216", "WC217", "WC218"}) p.severity[r] = Severity::warning;
  size_t agreed_findings = 0, metapackages = 0;
  for (const auto& w : wheels) {
    std::set<std::string> ours;
    auto name = std::filesystem::path(w).filename().string();
    WheelFacts facts = facts_of(read_file(w), name);
    for (const auto& f : check_wheel(facts, p).findings)
      if (f.rule >= "WC215" && f.rule <= "WC218") ours.insert(f.rule);
    // The one departure: an empty wheel with Requires-Dist is a metapackage (cuda-toolkit), no WC218.
    bool only_metadata = std::all_of(facts.entries.begin(), facts.entries.end(),
                                     [&](const EntryFacts& e) { return e.name.starts_with(facts.dist_info + "/"); });
    if (only_metadata && facts.metadata && !facts.metadata->get_all("Requires-Dist").empty() && said[w].erase("WC218"))
      ++metapackages;
    EXPECT_EQ(shown(ours), shown(said[w])) << w;
    agreed_findings += ours.size();
  }
  RecordProperty("wheels", static_cast<int>(wheels.size()));
  RecordProperty("findings", static_cast<int>(agreed_findings));
  RecordProperty("metapackages", static_cast<int>(metapackages));
}

}  // namespace
}  // namespace wc
