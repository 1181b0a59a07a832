#include "rules/loader/install_set.h"

#include <algorithm>
#include <deque>
#include <map>
#include <set>

#include "binary/binary_facts.h"
#include "rules/loader/resolution.h"
#include "util/parse.h"
#include "util/strings.h"
#include "wheel/entry_names.h"
#include "wheel/requirement.h"
#include "wheel/version.h"

namespace wc {
namespace {

// (platform class, architecture): ("glibc", "x86_64"), ("musl", "aarch64"), ("macos", "arm64") ...
// An empty list means platform-independent.
std::vector<std::pair<std::string, std::string>> platforms(const WheelFilename& w) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& t : w.platform_tags) {
    PlatformTag p = classify_platform(to_lower(t));
    switch (p.family) {
      case PlatformFamily::any: return {};
      case PlatformFamily::manylinux:
      case PlatformFamily::linux: out.emplace_back("glibc", p.arch); break;
      case PlatformFamily::musllinux: out.emplace_back("musl", p.arch); break;
      case PlatformFamily::macos:
        if (p.arch == "universal2")
          out.emplace_back("macos", "x86_64"), out.emplace_back("macos", "arm64");
        else
          out.emplace_back("macos", p.arch);
        break;
      case PlatformFamily::windows: out.emplace_back("windows", p.arch); break;
      case PlatformFamily::ios: out.emplace_back("ios", p.arch); break;
      case PlatformFamily::android: out.emplace_back("android", p.arch); break;
      case PlatformFamily::other: out.emplace_back("other", t); break;
    }
  }
  return out;
}

struct PyRange {
  int major = 0, lo = 0, hi = 1 << 20;  // minor versions [lo, hi]
  bool any = false;                     // tag we cannot place (pp73, ...): assume compatible
};

std::vector<PyRange> pythons(const WheelFilename& w) {
  bool abi3 = std::find(w.abi_tags.begin(), w.abi_tags.end(), "abi3") != w.abi_tags.end();
  std::vector<PyRange> out;
  for (const auto& tag : w.python_tags) {
    std::string_view t = tag;
    bool py = consume(t, "py"), cp = !py && consume(t, "cp");
    size_t n = digit_prefix(t);
    if ((!py && !cp) || n == 0 || n > 4 || n != t.size()) {
      out.push_back({0, 0, 0, true});
      continue;
    }
    PyRange r;
    r.major = t[0] - '0';
    if (n > 1) {
      r.lo = parse_small(t.substr(1)).value_or(0);
      // pyXY is any Python from X.Y on (packaging's compatible_tags yields py312, py311, ... py30
      // for 3.12: xformers' py39-none wheel installs beside a cp312 torch); cpXY with abi3 likewise;
      // cpXY otherwise is that CPython only.
      r.hi = py || (cp && abi3) ? 1 << 20 : r.lo;
    }
    out.push_back(r);
  }
  return out;
}

bool python_overlap(const WheelFilename& a, const WheelFilename& b) {
  auto pa = pythons(a), pb = pythons(b);
  if (pa.empty() || pb.empty()) return true;
  for (const auto& x : pa)
    for (const auto& y : pb)
      if (x.any || y.any || (x.major == y.major && x.lo <= y.hi && y.lo <= x.hi)) return true;
  return false;
}

}  // namespace

bool installable_together(const WheelFilename& a, const WheelFilename& b) {
  if (!a.valid || !b.valid) return false;
  auto pa = platforms(a), pb = platforms(b);
  bool platform_ok = pa.empty() || pb.empty();
  for (const auto& x : pa)
    for (const auto& y : pb) platform_ok |= x == y;
  return platform_ok && python_overlap(a, b);
}

bool installable_together(const WheelFacts& a, const WheelFacts& b) {
  return &a == &b || installable_together(a.filename, b.filename);
}

namespace {

// The projects `w` declares: every Requires-Dist whose markers can hold for `env`, by default or
// under one of w's extras, each with the version specifiers of its requirements ("" when
// unpinned): a wheel of that project none of them admits is never installed beside w.
std::map<std::string, std::vector<std::string>> declared_projects(const WheelFacts& w, const MarkerEnvironment& env,
                                                                  bool with_extras = true) {
  std::map<std::string, std::vector<std::string>> out;
  if (!w.metadata) return out;
  auto extras = with_extras ? w.metadata->get_all("Provides-Extra") : std::vector<std::string>{};
  for (const auto& line : w.metadata->get_all("Requires-Dist")) {
    auto r = parse_requirement(line);
    if (!r) continue;
    bool holds = evaluate(*r, env) != Truth::no;
    for (size_t k = 0; !holds && k < extras.size(); ++k) {
      MarkerEnvironment with = env;
      with["extra"] = extras[k];
      holds = evaluate(*r, with) != Truth::no;
    }
    if (holds) out[r->canonical_name].push_back(r->specifier);
  }
  return out;
}

// Whether some requirement `declared` holds for u's project admits u's version (an unpinned one
// admits every version): torch 2.13 pins nvidia-nccl==2.29.7, and an nccl 2.31.2 in the run is not
// its nccl; `numpy>=2` beside `numpy<2; extra == "legacy"` admits numpy 2. A version or specifier
// that does not parse is not held against it.
bool version_allowed(const std::map<std::string, std::vector<std::string>>& declared, const WheelFacts& u) {
  auto it = declared.find(u.filename.canonical_name);
  if (it == declared.end()) return true;
  auto v = parse_version(u.filename.version_text);
  if (!v) return true;
  return std::any_of(it->second.begin(), it->second.end(), [&](const std::string& text) {
    if (text.empty()) return true;
    auto spec = SpecifierSet::parse(text);
    return !spec || spec->contains(*v);
  });
}

// Install directories the binaries of `w` search (RPATH/RUNPATH resolved inside site-packages),
// each once (a torch wheel's hundreds of libraries search a handful of directories).
std::set<std::string> searched_dirs(const WheelFacts& w) {
  std::set<std::string> out;
  for (const auto& b : w.binaries)
    for (const auto& d : search_dirs(b))
      if (d.resolved) out.insert(*d.resolved);
  return out;
}

}  // namespace

std::set<std::string> install_dirs(const WheelFacts& w) {
  std::set<std::string> out;
  for (const auto& e : w.entries) {
    if (e.kind != EntryKind::file) continue;
    std::string p = environment_path(e.name);
    if (p.empty()) continue;
    auto slash = p.rfind('/');
    out.insert(slash == std::string::npos ? std::string() : p.substr(0, slash));
  }
  return out;
}

InstallSetIndex::InstallSetIndex(const std::vector<WheelFacts>& all, std::vector<std::set<std::string>> dirs,
                                 std::function<void(size_t)> load)
    : all_(all), dirs_(std::move(dirs)), dirs_given_(std::min(dirs_.size(), all.size())), load_(std::move(load)) {
  for (size_t i = 0; i < all.size(); ++i)
    if (all[i].filename.valid) by_project_[all[i].filename.canonical_name].push_back(i);
}

void InstallSetIndex::index_dirs() {
  if (dirs_indexed_) return;
  dirs_indexed_ = true;
  dirs_.resize(all_.size());
  for (size_t k = 0; k < all_.size(); ++k) {
    if (!all_[k].filename.valid) continue;
    if (k >= dirs_given_) dirs_[k] = install_dirs(all_[k]);
    for (const auto& d : dirs_[k]) by_dir_[d].push_back(k);
  }
}

const std::set<std::string>& InstallSetIndex::install_dirs_of(size_t i) {
  index_dirs();
  return dirs_[i];
}

std::vector<size_t> InstallSetIndex::reached_by(const std::set<std::string>& projects,
                                                const std::set<std::string>& dirs) {
  std::vector<size_t> out;
  for (const auto& name : projects)
    if (auto it = by_project_.find(name); it != by_project_.end())
      out.insert(out.end(), it->second.begin(), it->second.end());
  if (!dirs.empty()) {
    index_dirs();
    for (const auto& d : dirs)
      if (auto it = by_dir_.find(d); it != by_dir_.end()) out.insert(out.end(), it->second.begin(), it->second.end());
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

InstallSet install_set_for(const WheelFacts& f, const std::vector<WheelFacts>& all, InstallSetIndex* index,
                           const std::vector<std::string>& import_loaded) {
  InstallSet set;
  set.wheels.push_back(&f);
  std::set<const WheelFacts*> in{&f};
  const MarkerEnvironment env = environment_for(f.filename);
  const auto root_pins = declared_projects(f, env);
  std::deque<const WheelFacts*> queue{&f};
  // Without an index, each wheel's install directories are computed once and only when a search
  // path asks.
  std::map<size_t, std::set<std::string>> dirs_of;
  auto install_dirs_at = [&](size_t i) -> const std::set<std::string>& {
    if (index) return index->install_dirs_of(i);
    auto it = dirs_of.find(i);
    return it != dirs_of.end() ? it->second : dirs_of.emplace(i, install_dirs(all[i])).first->second;
  };
  // Declared projects whose wheels in the run the requirement excludes: project -> (requirer, the
  // excluded wheels' positions). One joins, with a conflict, when no admitted wheel does.
  std::map<std::string, std::pair<const WheelFacts*, std::vector<size_t>>> excluded;
  auto drain = [&]() {
    while (!queue.empty()) {
      const WheelFacts* w = queue.front();
      queue.pop_front();
      const auto wanted = declared_projects(*w, env);
      // What the wheel requires whatever extras are chosen: only such a requirement makes an install
      // of the run's wheel impossible (an extra's pin excludes it only when that extra is asked for).
      const auto required = declared_projects(*w, env, false);
      const auto dirs = searched_dirs(*w);
      std::set<std::string> needs;  // sonames w's binaries need: an imported project may hold them
      if (!import_loaded.empty())
        for (const auto& b : w->binaries) {
          needs.insert(b.needed.begin(), b.needed.end());
          needs.insert(b.dlls.begin(), b.dlls.end());  // Windows binds a loaded DLL by its file name
          for (const auto& sl : b.slices)              // dyld reuses an image loaded under an @rpath install name
            for (const auto& d : sl.dylibs)
              if (d.starts_with("@rpath/")) needs.emplace(last_component(d));
        }
      auto imported_provider = [&](size_t i) {
        const WheelFacts& u = all[i];
        if (needs.empty() ||
            std::find(import_loaded.begin(), import_loaded.end(), u.filename.canonical_name) == import_loaded.end())
          return false;
        if (index) index->load(i);
        return std::any_of(u.binaries.begin(), u.binaries.end(), [&](const BinaryFacts& lib) {
          return needs.count(lib.soname) || needs.count(std::string(last_component(lib.path)));
        });
      };
      // u joins when w declares its project, w's binaries search a folder u installs into, or u is a
      // project whose import loads its libraries and ships one w's binaries need by soname (torchao
      // needs libc10.so without declaring torch: with torch imported, the loader binds it; so does
      // torchaudio 2.11's @rpath/libc10.dylib on macOS, and c10.dll on Windows).
      auto consider = [&](size_t i) {
        const WheelFacts& u = all[i];
        if (in.count(&u) || !u.filename.valid || !installable_together(f, u)) return;
        if (!version_allowed(root_pins, u) || !version_allowed(wanted, u)) {
          const std::string& name = u.filename.canonical_name;
          if (required.count(name) && !version_allowed(required, u)) {
            auto& slot = excluded[name];
            if (!slot.first) slot.first = w;
            slot.second.push_back(i);
          }
          return;
        }
        bool reached =
            wanted.count(u.filename.canonical_name) > 0 ||
            (!dirs.empty() && std::any_of(dirs.begin(), dirs.end(),
                                          [&](const std::string& d) { return install_dirs_at(i).count(d) > 0; })) ||
            imported_provider(i);
        if (reached && in.insert(&u).second) {
          if (index) index->load(i);  // its binaries are read next, and by the rules
          set.wheels.push_back(&u);
          queue.push_back(&u);
        }
      };
      if (index) {  // only the wheels a declaration names or a search path reaches, in run order
        std::set<std::string> projects;
        for (const auto& [project, specifiers] : wanted) projects.insert(project);
        if (!needs.empty()) projects.insert(import_loaded.begin(), import_loaded.end());
        for (size_t i : index->reached_by(projects, dirs)) consider(i);
      } else
        for (size_t i = 0; i < all.size(); ++i) consider(i);
    }
  };
  drain();
  // A declared project none of whose wheels in the run the requirement admits: pip refuses the set,
  // but installed anyway it is what the process loads (torchvision 0.28.0, built for torch==2.13.0,
  // beside the run's torch 2.15.0 fails on c10::cuda symbols). The newest such wheel joins, and
  // the requirement is a conflict; what joins after it is looked at the same way.
  for (bool added = true; added;) {
    added = false;
    for (auto& [name, slot] : excluded) {
      bool present = std::any_of(set.wheels.begin(), set.wheels.end(), [&name = name](const WheelFacts* w) {
        return w->filename.valid && w->filename.canonical_name == name;
      });
      if (present || slot.second.empty()) continue;
      const WheelFacts* best = nullptr;
      std::optional<Version> best_v;
      size_t best_at = 0;
      for (size_t i : slot.second) {
        auto v = parse_version(all[i].filename.version_text);
        if (!best || (v && (!best_v || compare(*best_v, *v) < 0))) best = &all[i], best_v = v, best_at = i;
      }
      if (index) index->load(best_at);
      std::vector<std::string> lines;
      for (const auto& line : slot.first->metadata->get_all("Requires-Dist"))
        if (auto r = parse_requirement(line); r && r->canonical_name == name) lines.push_back(line);
      set.conflicts.push_back({slot.first, best, join(lines, "; ")});
      in.insert(best);
      set.wheels.push_back(best);
      queue.push_back(best);
      slot.second.clear();
      added = true;
      drain();
      break;  // `excluded` may have grown: start over
    }
  }
  return set;
}

}  // namespace wc
