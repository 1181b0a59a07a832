// A fresh venv for artifact runs, as a release validation job makes one: created with the
// python3 on PATH (or reused from a folder the user keeps), wheels installed with their
// dependencies from the sources given, nothing from the user's environment (no user site, no
// PIP_* settings or pip configuration files, no PYTHONPATH). Removed at the end unless kept.
// A temporary venv is made without pip when the base interpreter's pip can install into it
// (pip 22.3's --python): ensurepip costs ~7 s a venv on 2 cores, the venv alone ~0.3 s; a kept
// venv, or a base without such a pip, gets its own pip as before.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace wc::smoke {

struct PipSources {
  std::string index;                    // --index-url
  std::vector<std::string> find_links;  // --find-links (repeatable)
  bool no_index = false;                // --no-index
};

class TempVenv {
 public:
  // `base`: the interpreter the venv is made from (python3 on PATH when empty).
  explicit TempVenv(const std::string& keep, const std::string& base = "");
  ~TempVenv();
  TempVenv(const TempVenv&) = delete;
  TempVenv& operator=(const TempVenv&) = delete;
  std::string python() const { return dir_ + "/bin/python"; }
  const std::string& dir() const { return dir_; }
  // Installs `wheels` together (one resolution: a pinned torch beside an extension) with their
  // dependencies; returns pip's installation report (`pip install --report`: what it installed,
  // from where). Throws std::runtime_error with the tail of pip's log.
  nlohmann::json install(const std::vector<std::string>& wheels, const PipSources& from);
  // The environment a process of this venv gets: ours without what would reach outside it
  // (PYTHONPATH, PYTHONHOME, PYTHONSTARTUP, PYTHONUSERBASE, PIP_*), with PYTHONNOUSERSITE=1.
  // LD_LIBRARY_PATH stays: what it makes the loader find is what wheelsmoke import reports.
  static std::vector<std::string> clean_environment();

 private:
  std::string dir_, log_;
  std::string pip_;  // the pip command that installs into this venv
  bool keep_;
  int sh(const std::string& cmd) const;
  std::string tail() const;
};

// A POSIX shell word.
std::string shell_word(const std::string& s);

}  // namespace wc::smoke
