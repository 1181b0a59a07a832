#include "smoke/artifact/venv.h"

#include <stdlib.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "util/json_text.h"
#include "util/strings.h"
#include "wheel/entry_names.h"

extern char** environ;

namespace wc::smoke {

std::string shell_word(const std::string& s) {
  std::string o = "'";
  for (char c : s) o += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return o + "'";
}

std::vector<std::string> TempVenv::clean_environment() {
  std::vector<std::string> out;
  for (char** e = environ; *e; ++e) {
    std::string_view kv(*e);
    std::string_view key = kv.substr(0, kv.find('='));
    if (key == "PYTHONPATH" || key == "PYTHONHOME" || key == "PYTHONSTARTUP" || key == "PYTHONUSERBASE" ||
        key == "PYTHONNOUSERSITE" || key == "VIRTUAL_ENV" || key.starts_with("PIP_"))
      continue;
    out.emplace_back(kv);
  }
  out.push_back("PYTHONNOUSERSITE=1");
  out.push_back("PIP_CONFIG_FILE=/dev/null");  // pip reads no configuration file (its documented switch)
  out.push_back("PIP_DISABLE_PIP_VERSION_CHECK=1");
  return out;
}

TempVenv::TempVenv(const std::string& keep, const std::string& base) : keep_(!keep.empty()) {
  if (keep_) {
    dir_ = std::filesystem::absolute(keep).string();
  } else {
    char tmpl[] = "/tmp/wheelsmoke-venv-XXXXXX";
    if (!mkdtemp(tmpl)) throw std::runtime_error("cannot create a folder for the venv");
    dir_ = tmpl;
  }
  log_ = dir_ + ".log";
  std::string maker = base.empty() ? "python3" : base;
  pip_ = shell_word(python()) + " -m pip";
  if (std::filesystem::exists(python())) return;  // a kept venv, reused with its own pip
  const bool outer_pip =
      !keep_ && sh(shell_word(maker) + " -c " +
                   shell_word("import sys, pip; v = tuple(int(p) for p in pip.__version__.split('.')[:2]); "
                              "sys.exit(0 if v >= (22, 3) else 1)")) == 0;
  if (outer_pip && sh(shell_word(maker) + " -m venv --without-pip " + shell_word(dir_)) == 0) {
    pip_ = shell_word(maker) + " -m pip --python " + shell_word(python());
    return;
  }
  if (sh(shell_word(maker) + " -m venv " + shell_word(dir_)) != 0)
    throw std::runtime_error(maker + " -m venv " + dir_ + " failed" + tail());
}

TempVenv::~TempVenv() {
  std::error_code ec;
  if (!keep_) std::filesystem::remove_all(dir_, ec);
  std::filesystem::remove(log_, ec);
}

nlohmann::json TempVenv::install(const std::vector<std::string>& wheels, const PipSources& from) {
  std::string report = dir_ + ".pip-report.json";
  std::string cmd = pip_ + " install --disable-pip-version-check -q --report " + shell_word(report) +
                    // Wheels only: an sdist among the dependencies would run its build (arbitrary code, minutes)
                    // before anything is imported. A stalled index connection gives up after 60 s, not never.
                    " --only-binary :all: --timeout 60";
  if (from.no_index) cmd += " --no-index";
  if (!from.index.empty()) cmd += " --index-url " + shell_word(from.index);
  for (const auto& d : from.find_links) cmd += " --find-links " + shell_word(d);
  for (const auto& w : wheels) {
    if (!std::filesystem::is_regular_file(w)) throw std::runtime_error(w + ": no such wheel file");
    cmd += " " + shell_word(std::filesystem::absolute(w).string());
  }
  if (sh(cmd) != 0) {
    std::error_code ec;
    std::filesystem::remove(report, ec);
    std::string names;
    for (const auto& w : wheels) names += (names.empty() ? "" : ", ") + std::string(last_component(w));
    throw std::runtime_error("pip could not install " + names + " into " + dir_ + tail());
  }
  nlohmann::json out = nlohmann::json::object();
  try {
    out = read_json_file(report);
  } catch (const std::exception&) {
    // an older pip without --report still installed: the report is only a help
  }
  std::error_code ec;
  std::filesystem::remove(report, ec);
  return out;
}

int TempVenv::sh(const std::string& cmd) const {
  // The child gets the clean environment: `env -i` with each kept variable.
  std::string prefix = "env -i";
  for (const auto& kv : clean_environment()) prefix += " " + shell_word(kv);
  return std::system((prefix + " " + cmd + " >>" + shell_word(log_) + " 2>&1").c_str());
}

std::string TempVenv::tail() const {
  std::ifstream in(log_);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string words = last_lines(text, 3, 500);
  return words.empty() ? "" : ": " + words;
}

}  // namespace wc::smoke
