// Which wheels are installed together: an install set is one platform (architecture and libc
// flavour, or platform-independent) and one Python. A library needed by a binary resolves only
// against wheels of its own set: an aarch64 cusolver wheel does not find x86_64 cublas.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "facts/wheel_facts.h"

namespace wc {

struct PreloadedLibraries;  // rules/loader/resolution.h

struct InstallSet {
  std::vector<const WheelFacts*> wheels;  // includes the wheel being judged
  // A declared project whose only wheels in the run are at versions the requirement excludes: pip
  // refuses to install them together, but forced (two installs, --no-deps) that wheel is what the
  // process gets, so it joins the set and the requirement is reported.
  struct Conflict {
    const WheelFacts* requirer = nullptr;  // the wheel whose Requires-Dist excludes it
    const WheelFacts* provider = nullptr;  // the wheel of the run it excludes
    std::string requirement;               // the Requires-Dist lines naming that project
  };
  std::vector<Conflict> conflicts;
  // What library_file() finds already in the process, by the need's name: the same for every
  // binary judged against this set, so asked once (judge_in_set makes it when the set is final, and
  // asks from one thread: it takes no lock; without it every question walks the import's
  // libraries again).
  std::shared_ptr<PreloadedLibraries> preloaded;
};

// True when some interpreter could install both wheels into one environment.
bool installable_together(const WheelFacts& a, const WheelFacts& b);
// The same from the file names alone (platform and Python tags).
bool installable_together(const WheelFilename& a, const WheelFilename& b);
// The wheels of `all` that `f` is installed with: f itself, the wheels it declares (Requires-Dist,
// under any marker or extra that can hold on f's platform, and theirs in turn), and the wheels its
// binaries' own search paths reach; each installable together with f. Wheels of the run that f
// neither declares nor reaches never change its verdict.
//
// With `index` (made once for `all`), only the wheels a declaration names or a search path reaches
// are looked at: judging every wheel of a 100,000-target run stays linear instead of pairing each
// with every other. The set is the same, in the same order.
class InstallSetIndex;
// `import_loaded` (cuda.import_loaded): projects whose import loads their libraries; one of them
// that ships a soname f's binaries need joins f's set, declared or not.
InstallSet install_set_for(const WheelFacts& f, const std::vector<WheelFacts>& all, InstallSetIndex* index = nullptr,
                           const std::vector<std::string>& import_loaded = {});

// The directories `w` installs files into ("" for site-packages itself), each once.
std::set<std::string> install_dirs(const WheelFacts& w);

// Where each wheel of a run is found: by canonical project name and, once a search path asks, by
// the folders it installs into. Made once per run; the positions are in `all`'s order.
class InstallSetIndex {
 public:
  // For a run that parks its wheels' entries and binaries (facts/spill.h): `dirs`, install_dirs() of
  // the first wheels of `all`, taken before they were parked (the others' are read from their
  // entries), and `load`, called with a wheel's position before its entries or binaries are read.
  explicit InstallSetIndex(const std::vector<WheelFacts>& all, std::vector<std::set<std::string>> dirs = {},
                           std::function<void(size_t)> load = {});
  // The positions of the wheels of `projects`, and of those installing into one of `dirs`, ascending.
  std::vector<size_t> reached_by(const std::set<std::string>& projects, const std::set<std::string>& dirs);
  const std::set<std::string>& install_dirs_of(size_t i);
  void load(size_t i) const {
    if (load_) load_(i);
  }

 private:
  const std::vector<WheelFacts>& all_;
  std::map<std::string, std::vector<size_t>> by_project_, by_dir_;
  std::vector<std::set<std::string>> dirs_;  // every wheel's, made when a search path first asks
  size_t dirs_given_ = 0;
  bool dirs_indexed_ = false;
  std::function<void(size_t)> load_;
  void index_dirs();
};

}  // namespace wc
