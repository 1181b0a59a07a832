// WC501-WC510: native binaries against the platform tag, the policy's platform tables and the
// wheels installed with them. Calibrated on real releases (torch, jaxlib, scipy, numpy, lxml):
//  - a needed library resolves through RPATH/RUNPATH across the install set (one platform, one
//    Python); one a declared dependency provides is a warning naming the dependency; an unmet need
//    of a library nothing loads is a warning that says so;
//  - WC503 is one finding per binary and cause, naming every library missed for it;
//  - RPATH entries that leave the install tree are reported once per binary (ELF and Mach-O alike):
//    an error when the loader searches them for a library the wheel or its set provides or lacks,
//    a warning when they are dead (searched for system libraries only);
//  - platform-independent wheels get no architecture or library verdicts (content_rules says what
//    their native files are).
#include <algorithm>
#include <iterator>
#include <map>
#include <set>

#include "binary/binary_facts.h"
#include "rules/loader/dylib_resolution.h"
#include "rules/loader/resolution.h"
#include "rules/metadata/platform_tag.h"
#include "rules/rules.h"
#include "util/parse.h"
#include "util/strings.h"
#include "wheel/entry_names.h"
#include "wheel/requirement.h"
#include "wheel/sbom.h"

namespace wc {
namespace {

// The level a tag promises: the newest table row at or below its version (PEP 600 allows levels
// between rows, e.g. manylinux_2_18). Symbol ceilings come from that row, except GLIBC, which is
// the tag's own version.
const LinuxLevel* level_for(const std::vector<LinuxLevel>& levels, const PlatformTag& tag) {
  const LinuxLevel* best = nullptr;
  for (const auto& l : levels)
    if (l.major < tag.major || (l.major == tag.major && l.minor <= tag.minor)) best = &l;
  return best;
}

struct LinuxContext {
  PlatformTag tag;
  const LinuxLevel* level = nullptr;
  std::vector<std::string> libs;
  std::string ceiling(const std::string& arch, const std::string& prefix) const {
    if (prefix == "GLIBC" && tag.family == PlatformFamily::manylinux)
      return std::to_string(tag.major) + "." + std::to_string(tag.minor);
    return level ? level->ceiling(arch, prefix) : "";
  }
  std::string name() const {
    return std::string(family_name(tag.family)) + "_" + std::to_string(tag.major) + "_" + std::to_string(tag.minor);
  }
};

// ELF machine names for the architectures PEP 738 (Android) and the Linux tags spell differently.
std::string elf_arch_for_tag(const PlatformTag& t) {
  if (t.family == PlatformFamily::android) {
    if (t.arch == "arm64_v8a") return "aarch64";
    if (t.arch == "armeabi_v7a") return "armv7l";
    if (t.arch == "x86") return "i686";
  }
  return t.arch;
}

std::string justified_note(const JustifiedTag& j) {
  if (!j.applies) return "";
  return j.tag ? "; the binaries justify " + *j.tag : "; no portable tag fits (" + j.why + ")";
}

// A Requires-Dist dependency that installs a library, as the policy's providers table says.
struct Provider {
  std::string key;          // "nvidia-cublas" or "cuda-toolkit[cublas]"
  std::string requirement;  // the Requires-Dist line
  std::string name;         // canonical name of the dependency
  std::string extra;        // the wheel's own extra that pulls it in ("ctk"), or "" when installed by default
  std::string specifier;    // the requirement's version specifier
  std::string through;      // the wheel of the set that declares it, when not the wheel judged
};

std::vector<std::pair<Provider, std::vector<std::string>>> providers_of(const WheelFacts& f, const CudaPolicy& cuda) {
  std::vector<std::pair<Provider, std::vector<std::string>>> out;
  if (!f.metadata || cuda.providers.empty()) return out;
  MarkerEnvironment env = environment_for(f.filename);
  auto extras = f.metadata->get_all("Provides-Extra");
  for (const auto& line : f.metadata->get_all("Requires-Dist")) {
    auto r = parse_requirement(line);
    if (!r) continue;
    // Installed by default, or only with one of the wheel's extras (cupy-cuda12x[ctk]).
    std::string via;
    if (evaluate(*r, env) == Truth::no) {
      for (const auto& x : extras) {
        MarkerEnvironment with = env;
        with["extra"] = x;
        if (evaluate(*r, with) != Truth::no) {
          via = x;
          break;
        }
      }
      if (via.empty()) continue;
    }
    std::vector<std::string> keys{r->canonical_name};
    for (const auto& e : r->extras) keys.push_back(r->canonical_name + "[" + e + "]");
    for (const auto& k : keys) {
      auto it = cuda.providers.find(k);
      if (it != cuda.providers.end()) out.push_back({{k, line, r->canonical_name, via, r->specifier, ""}, it->second});
    }
  }
  return out;
}

struct ElfContext {
  const WheelFacts& f;
  const InstallSet& set;
  const CudaPolicy& cuda;
  const LoadGraph& graph;
  const JustifiedTag& justified;
  std::vector<std::pair<Provider, std::vector<std::string>>> providers;
  // Requires-Dist line -> (sonames, binaries needing them), reported once per dependency
  std::map<std::string, std::pair<std::set<std::string>, std::set<std::string>>> from_dependencies;
  std::map<std::string, const Provider*> dependency_of;
  std::set<std::string> present_dependencies;  // Requires-Dist lines whose own wheel is in the set
  // The providers the other wheels of the set declare, made on first use.
  std::vector<std::pair<const WheelFacts*, std::vector<std::pair<Provider, std::vector<std::string>>>>> others;
  bool others_made = false;
  const auto& transitive_providers() {
    if (!others_made) {
      others_made = true;
      for (const auto* w : set.wheels)
        if (w != &f) {
          auto provs = providers_of(*w, cuda);
          for (auto& [prov, globs] : provs) prov.through = w->filename.canonical_name;
          if (!provs.empty()) others.emplace_back(w, std::move(provs));
        }
    }
    return others;
  }
  // (prefix, newest needed) -> binaries, reported once per cause (WC502)
  std::map<std::pair<std::string, std::string>, std::pair<std::vector<std::string>, std::set<std::string>>> too_new;
};

std::string describe_dirs(const std::vector<SearchDir>& dirs) {
  std::vector<std::string> parts;
  for (const auto& d : dirs)
    parts.push_back(d.written + (d.resolved ? " (-> " + (d.resolved->empty() ? "site-packages" : *d.resolved) + ")"
                                 : d.absolute && !d.written.empty() && d.written[0] == '/'
                                     ? " (absolute)"
                                     : " (outside site-packages)"));
  return join(parts, ", ");
}

// A need the system provides: the platform tag's libraries, the policy's allowed ones, the driver's.
bool system_need(const Policy& pol, const LinuxContext* lx, const std::string& need) {
  return (lx && std::find(lx->libs.begin(), lx->libs.end(), need) != lx->libs.end()) ||
         glob_any(pol.linux.allowed_libraries, need) || glob_any(pol.cuda.driver_libraries, need);
}

// WC503 for one binary's needed libraries.
void needed_libraries(ElfContext& cx, const BinaryFacts& b, const LinuxContext* lx, FindingSink& s) {
  const Policy& pol = s.policy();
  auto dirs = search_dirs(b);
  std::map<std::string, std::vector<std::string>> candidate_needs;  // environment -> needs
  std::vector<std::string> unlinked;                                // needs of a binary nothing links
  std::map<std::string, std::vector<std::string>> not_found;        // why -> needs nowhere (errors)
  for (const auto& need : b.needed) {
    if (system_need(pol, lx, need)) continue;
    // Through its search paths and siblings, or already in the process: a project whose import
    // loads its libraries (import torch: libtorch, libc10, and what they need, libcudart.so.13
    // among them) serves the need by soname, search path or not, when a wheel of the set ships it.
    if (library_file(b, need, cx.set, pol.cuda)) continue;
    // A declared dependency provides it: expected from outside the wheel, unless that dependency's
    // wheel is in the set, where the library must then resolve for real.
    const Provider* by = nullptr;
    for (const auto& [prov, globs] : cx.providers)
      if (glob_any(globs, need) && provider_admits(prov.name, prov.specifier, need)) by = &prov;
    // Else a dependency of a wheel installed with it, whose own wheel is not in the set
    // (cuquantum-python-cu12 -> cuquantum-cu12 -> cutensornet-cu12).
    if (!by)
      for (const auto& [w, provs] : cx.transitive_providers())
        for (const auto& row : provs) {
          const Provider& prov = row.first;
          if (!by && glob_any(row.second, need) && provider_admits(prov.name, prov.specifier, need) &&
              std::none_of(cx.set.wheels.begin(), cx.set.wheels.end(), [&](const WheelFacts* u) {
                return u->filename.valid && u->filename.canonical_name == prov.name;
              }))
            by = &prov;
        }
    // A wheel of the set that really installs it (nvidia-cublas for libcublas.so.13, not the
    // cuda-toolkit meta-package that pulls it in): then it must resolve for real.
    const CudaPolicy& cuda = pol.cuda;
    bool dependency_present =
        by && std::any_of(cx.set.wheels.begin(), cx.set.wheels.end(), [&](const WheelFacts* w) {
          if (w == &cx.f || !w->filename.valid || !shipped_library(*w, need)) return false;
          auto row = cuda.providers.find(w->filename.canonical_name);
          return w->filename.canonical_name == by->name || (row != cuda.providers.end() && glob_any(row->second, need));
        });
    // The declared dependency's own wheel in the set without the library: one the providers table
    // says installs it itself (nvidia-cublas) should ship it; one whose import loads its libraries
    // (torch) brings what those libraries need (libcudart.so.13 from its CUDA 13 wheels) and nothing
    // else, so a CUDA 12 runtime beside a CUDA 13 torch comes from nowhere. A meta-package
    // (cuda-toolkit) leaves it to its own dependencies.
    const WheelFacts* dep_wheel = nullptr;
    for (const auto* w : cx.set.wheels)
      if (by && w != &cx.f && w->filename.valid && w->filename.canonical_name == by->name) dep_wheel = w;
    std::string dep_lacks;
    if (dep_wheel && !dependency_present) {
      const std::string who = dep_wheel->filename.name + " " + dep_wheel->filename.version_text + " (" +
                              clip_for_display(by->requirement, 200) + ")";
      auto row = cuda.providers.find(dep_wheel->filename.canonical_name);
      if (import_loaded(*dep_wheel, cuda)) {
        if (std::none_of(dep_wheel->binaries.begin(), dep_wheel->binaries.end(), [&](const BinaryFacts& lib) {
              return std::find(lib.needed.begin(), lib.needed.end(), need) != lib.needed.end();
            }))
          dep_lacks = "; the dependency " + who + " is in the run, and nothing its import loads needs or installs it";
      } else if (row != cuda.providers.end() && glob_any(row->second, need)) {
        dep_lacks = "; the dependency " + who + " is in the run and does not ship it";
      }
    }
    const bool dep_lacks_it = !dep_lacks.empty();
    if (by && !dependency_present && !dep_lacks_it) {  // one report per Requires-Dist line, whatever extras it names
      auto& slot = cx.from_dependencies[by->requirement];
      slot.first.insert(need);
      slot.second.insert(b.path);
      cx.dependency_of[by->requirement] = by;
      if (dep_wheel) cx.present_dependencies.insert(by->requirement);
      continue;
    }
    // A library nothing of the run links, in a wheel whose Python loads none of its libraries by
    // name, needing one of an environment the run lacks (bitsandbytes' _cuda118.so beside a CUDA 13
    // torch, cuDSS's MPI layer): a variant or layer a loader picks at run time where that
    // environment exists. Its symbols still have to bind wherever it loads (WC514).
    if (std::string env = environment_of(need);
        !env.empty() && (cx.graph.candidate(cx.f, b) || !cx.graph.loaded(cx.f, b))) {
      candidate_needs[env].push_back(need);
      continue;
    }
    if (!cx.graph.loaded(cx.f, b)) {
      unlinked.push_back(need);
      continue;
    }
    not_found[dependency_present ? "; the wheel that provides it is in the set, but not where the search path looks"
                                 : dep_lacks]
        .push_back(need);
  }
  // One finding per binary and cause, naming every library it misses for that cause (a binary
  // linked against a toolkit the run lacks misses five to twelve at once).
  const std::string where = dirs.empty() ? "it has no RPATH or RUNPATH" : "searched " + describe_dirs(dirs);
  auto system = [&](const std::vector<std::string>& v) {
    return std::string(v.size() == 1 ? "not a system library " : "not system libraries ") +
           (lx ? lx->name() : std::string("the policy")) + " allows";
  };
  auto needs = [](const std::vector<std::string>& v, const char* one, const char* many) {
    return "needs " + join(v, ", ") + (v.size() == 1 ? one : many);
  };
  if (!unlinked.empty())
    s.add("WC503",
          needs(unlinked, ", which is", ", which are") + " nowhere in the wheel or its install set (" + where + "; " +
              system(unlinked) + "); nothing in them links " + install_path(b.path) +
              " (a plugin or a leftover?), so this fails only where something loads it",
          b.path, std::nullopt, Severity::warning);
  for (const auto& [why, sonames] : not_found)
    s.add("WC503",
          needs(sonames, ", which is not found: ", ", which are not found: ") + where + "; " + system(sonames) + why +
              justified_note(cx.justified),
          b.path);
  for (const auto& [env, sonames] : candidate_needs)
    s.add("WC503",
          "needs " + join(sonames, ", ") + ", of " + env + ", which nothing in the run provides (" + where +
              "); nothing in the run links " + install_path(b.path) + ", so it is a candidate a loader picks at run " +
              "time where " + env + " is installed, and it fails to load anywhere else",
          b.path, std::nullopt, Severity::warning);
}

// WC504, once per binary: RPATH/RUNPATH entries outside the install tree (absolute, relative to the
// working directory, or climbing out of site-packages). One rule whatever else the wheel lacks: an
// error when the loader searches an entry outside the environment for a library the wheel or its
// install set provides or lacks (before the wheel's copy: a machine with a library of that name
// there loads it instead; found nowhere else: it comes from there or from nowhere); a warning when
// such entries are searched for system libraries only (dead), or when the only entries searched
// stay inside the environment's prefix (torch/_C.so's $ORIGIN/../../nvidia/...: lib/python3.12/
// nvidia, which only what installs into that environment writes).
void search_path_safety(const ElfContext& cx, const BinaryFacts& b, const LinuxContext* lx, FindingSink& s) {
  const auto dirs = search_dirs(b);
  std::vector<size_t> bad;
  std::optional<size_t> first_outside;  // the first entry outside the environment's prefix
  for (size_t i = 0; i < dirs.size(); ++i)
    if (!dirs[i].resolved) {
      bad.push_back(i);
      if (!dirs[i].in_prefix && !first_outside) first_outside = i;
    }
  if (bad.empty()) return;
  const Policy& pol = s.policy();
  const std::string here = std::string(parent_dir(environment_path(b.path)));
  // For each need the loader looks up in the entries: how far it searches (up to the entry that
  // finds it, or all of them), and why. "libX.so (why)", split by whether an entry outside the
  // environment is among those searched.
  std::vector<std::string> searched_outside, searched_prefix;
  for (const auto& need : b.needed) {
    if (system_need(pol, lx, need)) continue;
    // A declared dependency's library (WC503's warning names it): its import loads it first.
    if (std::any_of(cx.from_dependencies.begin(), cx.from_dependencies.end(),
                    [&](const auto& d) { return d.second.first.count(need) > 0; }))
      continue;
    std::string why;
    size_t upto = dirs.size();  // entries before this index are searched
    if (auto k = resolving_search_dir(b, need, cx.set.wheels)) {
      if (*k < bad.front()) continue;  // found before any entry outside the tree
      why = "before " + dirs[*k].written + ", where the run's copy is";
      upto = *k;
    } else if (auto file = library_file(b, need, cx.set, pol.cuda)) {
      // An auditwheel sibling is found by soname only once loaded: the entries are searched first.
      // Anything else found without the search path (an extension module, a library an import or
      // the package's Python loads first) is already in the process: nothing is searched.
      if (parent_dir(file->path) != here) continue;
      why = "before its sibling " + file->path;
    } else if (std::any_of(dirs.begin(), dirs.begin() + static_cast<std::ptrdiff_t>(bad.front()),
                           [](const SearchDir& d) { return d.resolved.has_value(); })) {
      continue;  // not in the run: an entry inside the tree comes first and may hold it where installed
    } else {
      why = "which the run does not provide";
    }
    (first_outside && *first_outside < upto ? searched_outside : searched_prefix).push_back(need + " (" + why + ")");
  }
  std::vector<SearchDir> outside, prefix, all;
  bool build_machine = false;
  for (size_t i : bad) {
    (dirs[i].in_prefix ? prefix : outside).push_back(dirs[i]);
    all.push_back(dirs[i]);
    build_machine |= is_build_machine_path(dirs[i].written);
  }
  const std::string whose = build_machine ? " (a folder of the build machine)" : "";
  if (!searched_outside.empty())
    s.add("WC504",
          "RPATH/RUNPATH entries outside the install tree: " + describe_dirs(outside) + whose +
              "; the loader searches them for " + join_shown(searched_outside, 4) +
              ": a machine with a library of that name there loads it instead",
          b.path);
  else if (!searched_prefix.empty())
    s.add("WC504",
          "RPATH/RUNPATH entries outside site-packages: " + describe_dirs(prefix) +
              (outside.empty() ? "" : " (and dead ones outside the environment: " + describe_dirs(outside) + ")") +
              "; the loader searches them for " + join_shown(searched_prefix, 4) +
              " first; they stay inside the environment's prefix, so only a library installed into it there "
              "loads instead",
          b.path, std::nullopt, Severity::warning);
  else
    s.add("WC504",
          "dead RPATH/RUNPATH entries outside the install tree: " + describe_dirs(all) + whose +
              "; every library it needs from the wheel or its install set is found before them, so only system "
              "libraries are looked up there",
          b.path, std::nullopt, Severity::warning);
}

// Versioned symbols newer than the tag allows, gathered per wheel: one finding per prefix and newest
// version needed (the cause: the toolchain the wheel was built with), naming the binaries.
void symbol_ceilings(ElfContext& cx, const BinaryFacts& b, const LinuxContext& lx) {
  for (const auto& [prefix, have] : b.max_symbol_versions()) {
    std::string ceiling = lx.ceiling(lx.tag.arch, prefix);
    if (ceiling.empty() || compare_dotted(have, ceiling) <= 0) continue;
    auto& slot = cx.too_new[{prefix, have}];
    slot.first.push_back(b.path);
    for (const auto& [lib, vers] : b.version_needs)
      for (const auto& v : vers)
        if (v.rfind(prefix + "_", 0) == 0 && compare_dotted(v.substr(prefix.size() + 1), ceiling) > 0)
          slot.second.insert(v);
  }
}

void report_symbol_ceilings(const ElfContext& cx, const LinuxContext& lx, FindingSink& s) {
  for (const auto& [key, slot] : cx.too_new) {
    const auto& [prefix, have] = key;
    const auto& [bins, versions] = slot;
    std::string ceiling = lx.ceiling(lx.tag.arch, prefix);
    std::string allows = ceiling == "0" ? "allows no " + prefix + " symbols" : "allows " + prefix + " up to " + ceiling;
    std::vector<std::string> shown(bins.begin(), bins.begin() + std::min<size_t>(bins.size(), 3));
    std::string who = bins.size() == 1 ? ""
                                       : std::to_string(bins.size()) + " binaries (" + join(shown, ", ") +
                                             (bins.size() > 3 ? ", ..." : "") + ") ";
    s.add("WC502",
          who + "need " + prefix + "_" + have + ": tag says " + lx.name() + ", which " + allows + " (" +
              join({versions.begin(), versions.end()}, ", ") + ")" +
              (cx.justified.tag ? "; the binaries need " + *cx.justified.tag : justified_note(cx.justified)),
          bins.size() == 1 ? bins[0] : "");
  }
}

void elf_rules(ElfContext& cx, const BinaryFacts& b, const LinuxContext* lx, FindingSink& s) {
  const Policy& pol = s.policy();
  if (b.exec_stack)
    s.add("WC509", "requests an executable stack (PT_GNU_STACK has PF_X); hardened kernels refuse to load it", b.path);
  if (!lx) return;
  std::string want_arch = elf_arch_for_tag(lx->tag);
  if (want_arch != b.arch)
    s.add("WC501", "ELF machine is " + b.arch + ", the platform tag says " + lx->tag.arch, b.path);
  if (lx->tag.family == PlatformFamily::android) return;  // no system-library tables for Android here
  bool musl_tag = lx->tag.family == PlatformFamily::musllinux;
  if (!b.libc.empty() && (b.libc == "musl") != musl_tag)
    s.add("WC505",
          "binary is linked against " + b.libc + ", the tag is " + family_name(lx->tag.family) +
              justified_note(cx.justified),
          b.path);
  if (!musl_tag) symbol_ceilings(cx, b, *lx);
  needed_libraries(cx, b, lx, s);
  search_path_safety(cx, b, lx, s);
  if (lx->tag.arch == "x86_64" && b.x86_isa_level && *b.x86_isa_level > pol.linux.x86_64_isa_baseline)
    s.add("WC510",
          "needs x86-64-v" + std::to_string(*b.x86_isa_level) +
              " instructions; manylinux x86_64 promises only the baseline",
          b.path);
}

// One warning per dependency the wheel expects libraries from (not in the checked set).
void report_dependencies(const ElfContext& cx, FindingSink& s) {
  for (const auto& [line, slot] : cx.from_dependencies) {
    const auto& [sonames, binaries] = slot;
    const Provider* by = cx.dependency_of.at(line);
    s.add("WC503",
          join({sonames.begin(), sonames.end()}, ", ") + " (needed by " + std::to_string(binaries.size()) + " binar" +
              (binaries.size() == 1 ? "y" : "ies") + ") come from the dependency " + by->name +
              (by->extra.empty() ? ""
                                 : ", installed only with the extra '" + by->extra +
                                       "' (otherwise from a CUDA installation on the system)") +
              (by->through.empty() ? "" : " through " + by->through) +
              " (Requires-Dist: " + clip_for_display(line, 200) + ")" +
              (cx.present_dependencies.count(line)
                   ? ", whose own dependencies install them; the wheels that ship them are not in the checked set"
                   : ", whose wheel is not in the checked set"),
          cx.f.dist_info + "/METADATA", std::nullopt, Severity::warning);
  }
}

// macOS install names, resolved as dyld resolves them (find_dylib). A weak dylib dyld goes on
// without.
// A dylib the install set lacks but a declared dependency provides (the providers table: mlx's
// module loads @rpath/libmlx.dylib from its `mlx-metal; platform_system == "Darwin"`) is a warning
// naming that dependency, as on Linux; with the dependency's wheel in the run it resolves for real.
// One WC503 finding per binary and cause over its slices, naming the dylibs and the slices.
void macho_dylibs(const WheelFacts& f, const BinaryFacts& b, const InstallSet& set, bool ios, FindingSink& s) {
  const std::string own_leaf(last_component(b.path));
  // A plugin its host application loads: a wheel without extension modules, and nothing of it
  // loads this binary.
  const bool host_plugin =
      std::none_of(f.binaries.begin(), f.binaries.end(), [](const BinaryFacts& o) { return is_extension_module(o); }) &&
      std::none_of(f.binaries.begin(), f.binaries.end(), [&](const BinaryFacts& o) {
        return &o != &b && std::any_of(o.slices.begin(), o.slices.end(), [&](const MachOSlice& os) {
          return std::any_of(os.dylibs.begin(), os.dylibs.end(),
                             [&](const std::string& d) { return last_component(d) == own_leaf; });
        });
      });
  // cause ("" for WC503's error, "plugin", or the absent dependency) -> dylibs, and the slices
  struct Group {
    std::vector<std::string> dylibs, arches;
  };
  std::map<std::string, Group> groups;
  auto add = [](Group& g, const std::string& d, const std::string& arch) {
    if (std::find(g.dylibs.begin(), g.dylibs.end(), d) == g.dylibs.end()) g.dylibs.push_back(d);
    if (std::find(g.arches.begin(), g.arches.end(), arch) == g.arches.end()) g.arches.push_back(arch);
  };
  for (const auto& sl : b.slices)
    for (const auto& d : sl.dylibs) {
      std::string leaf(last_component(d));
      if (find_dylib(f, b, sl, d, set, s.policy(), ios).where != DylibFound::Where::nowhere) continue;
      if (std::find(sl.weak_dylibs.begin(), sl.weak_dylibs.end(), d) != sl.weak_dylibs.end()) continue;
      // Only an @rpath name can be met by another wheel's copy (dyld searches the LC_RPATHs); an
      // absolute build-machine path stays an error whatever is installed.
      std::string dep = d.rfind("@rpath/", 0) == 0 ? absent_dependency_for(f, set, s.policy(), leaf) : "";
      if (dep.empty() && d.rfind("@rpath/", 0) == 0 && host_plugin)
        add(groups["plugin"], d, sl.arch);
      else if (!dep.empty())
        add(groups["dependency " + dep], d, sl.arch);
      else
        add(groups[""], d, sl.arch);
    }
  for (const auto& [cause, g] : groups) {
    const std::string who = join(g.arches, ", ") + (g.arches.size() == 1 ? " slice loads " : " slices load ") +
                            join(g.dylibs, ", ") + (g.dylibs.size() == 1 ? ", which " : ", which each ");
    if (cause == "plugin")
      s.add("WC503",
            who + "nothing of the run provides; " + install_path(b.path) +
                " is a plugin (no extension module in the wheel, nothing of it loads this one), so the host "
                "application that loads it provides that image (tensorflow-metal's @rpath/"
                "_pywrap_tensorflow_internal.so is TensorFlow's): it fails only in a host without it",
            b.path, std::nullopt, Severity::warning);
    else if (!cause.empty())
      s.add("WC503",
            who + "comes from the " + cause + " (declared in Requires-Dist), whose wheel is not in the checked set",
            b.path, std::nullopt, Severity::warning);
    else
      s.add("WC503",
            who + "is neither a system library nor shipped where its install name points" +
                (std::any_of(g.dylibs.begin(), g.dylibs.end(),
                             [](const std::string& d) { return d.rfind("@rpath/", 0) == 0; })
                     ? " (no image loaded under an @rpath name, no LC_RPATH of it or of what loads it reaches it)"
                     : ""),
            b.path);
  }
}

// WC504 for a Mach-O binary, once over its slices: absolute LC_RPATHs outside the install tree, by
// the ELF rule: an error when dyld tries one for an @rpath name before the image it loads (or when
// it finds that name nowhere), a warning when no @rpath name is looked up there (every one is an
// image already in the process, or found through an earlier LC_RPATH).
void macho_rpaths(const WheelFacts& f, const BinaryFacts& b, const InstallSet& set, bool ios, FindingSink& s) {
  const auto& prefixes = s.policy().macos.system_prefixes;
  std::vector<std::string> absolute, searched;
  bool build_machine = false;
  for (const auto& sl : b.slices) {
    size_t first_bad = sl.rpaths.size();
    bool inside_before = false;  // an @loader_path entry precedes the first absolute one
    for (size_t i = 0; i < sl.rpaths.size(); ++i) {
      const std::string& r = sl.rpaths[i];
      if (r.empty() || r[0] != '/' ||
          std::any_of(prefixes.begin(), prefixes.end(), [&](const std::string& p) { return r.rfind(p, 0) == 0; })) {
        if (first_bad == sl.rpaths.size() && r.rfind("@loader_path", 0) == 0) inside_before = true;
        continue;
      }
      first_bad = std::min(first_bad, i);
      build_machine |= is_build_machine_path(r);
      if (std::find(absolute.begin(), absolute.end(), r + " (absolute)") == absolute.end())
        absolute.push_back(r + " (absolute)");
    }
    if (first_bad == sl.rpaths.size()) continue;
    for (const auto& d : sl.dylibs) {
      if (d.rfind("@rpath/", 0) != 0) continue;
      DylibFound found = find_dylib(f, b, sl, d, set, s.policy(), ios);
      if (found.already_loaded || found.rpaths_searched <= first_bad) continue;
      std::string why;
      if (found.where == DylibFound::Where::run && found.rpaths_searched <= sl.rpaths.size() &&
          sl.rpaths[found.rpaths_searched - 1].rfind("@loader_path", 0) == 0)
        why = "before " + sl.rpaths[found.rpaths_searched - 1] + ", where the run's image is";
      else if (found.where == DylibFound::Where::run)
        why = "before the LC_RPATHs of what loads it, where the run's image is";
      else if (found.where == DylibFound::Where::system)
        continue;  // a system library, as on Linux: what the entries are dead for
      else if (inside_before || std::find(sl.weak_dylibs.begin(), sl.weak_dylibs.end(), d) != sl.weak_dylibs.end() ||
               !absent_dependency_for(f, set, s.policy(), d.substr(d.rfind('/') + 1)).empty())
        continue;  // not in the run: an LC_RPATH inside the tree may hold it where installed, a weak one is
                   // optional, a declared dependency's is loaded by its import first (WC503 names it)
      else
        why = "which the run does not provide";
      std::string item = d + " (" + why + ")";
      if (std::find(searched.begin(), searched.end(), item) == searched.end()) searched.push_back(item);
    }
  }
  if (absolute.empty()) return;
  const std::string whose = build_machine ? " (a folder of the build machine)" : "";
  if (!searched.empty())
    s.add("WC504",
          "LC_RPATH entries outside the install tree: " + join(absolute, ", ") + whose + "; dyld searches them for " +
              join_shown(searched, 4) + ": a machine with an image of that name there loads it instead",
          b.path);
  else
    s.add("WC504",
          "dead LC_RPATH entries outside the install tree: " + join(absolute, ", ") + whose +
              "; every @rpath image it loads from the wheel or its install set is already in the process or found "
              "before them, so only system and optional (weak) images are looked up there",
          b.path, std::nullopt, Severity::warning);
}

// Slices needing a newer macOS than the tag promises, gathered per wheel: one finding per
// (architecture, needed version, promised version), naming how many binaries and a few of them.
struct MinosGaps {
  struct Key {
    std::string arch, needs, promised;
    bool same_major;
    auto operator<=>(const Key&) const = default;
  };
  std::map<Key, std::vector<std::string>> binaries;
};

// arm64 macOS starts at 11.0: an arm64 slice's floor is 11.0 whatever a universal2 tag says. From
// macOS 11 on, installers treat a tag as the whole major release (macosx_12_0 matches 12.x), so a
// slice needing 12.3 in a 12_0 wheel fails only on 12.0-12.2: a warning, not an error.
void macho_minos(const MachOSlice& sl, const PlatformTag& tag, const BinaryFacts& b, MinosGaps& gaps) {
  if (sl.minos.empty()) return;
  std::string tagv = std::to_string(tag.major) + "." + std::to_string(tag.minor);
  std::string floor = sl.arch == "arm64" && compare_dotted(tagv, "11.0") < 0 ? "11.0" : tagv;
  if (compare_dotted(sl.minos, floor) <= 0) return;
  gaps.binaries[{sl.arch, sl.minos, floor, tag.major >= 11 && sl.minos_major == tag.major}].push_back(b.path);
}

void report_minos(const MinosGaps& gaps, FindingSink& s) {
  for (const auto& [k, bins] : gaps.binaries) {
    std::vector<std::string> shown(bins.begin(), bins.begin() + std::min<size_t>(bins.size(), 3));
    std::string which = bins.size() == 1 ? ""
                                         : std::to_string(bins.size()) + " binaries (" + join(shown, ", ") +
                                               (bins.size() > 3 ? ", ..." : "") + "): ";
    std::string major = k.promised.substr(0, k.promised.find('.'));
    s.add("WC506",
          which + k.arch + " slice needs macOS " + k.needs +
              " (its minimum-OS load command, LC_BUILD_VERSION or LC_VERSION_MIN_MACOSX), the tag promises " +
              k.promised +
              (k.same_major ? "; installers treat macosx_" + major + "_0 as all of macOS " + major +
                                  ", so it fails to load only on " + k.promised + " up to " + k.needs
                            : ""),
          bins.size() == 1 ? bins[0] : "", std::nullopt,
          k.same_major ? std::optional(Severity::warning) : std::nullopt);
  }
}

const char* apple_platform_name(uint32_t p) {
  static const char* const names[] = {"unknown",
                                      "macOS",
                                      "iOS",
                                      "tvOS",
                                      "watchOS",
                                      "bridgeOS",
                                      "Mac Catalyst",
                                      "iOS simulator",
                                      "tvOS simulator",
                                      "watchOS simulator",
                                      "DriverKit",
                                      "visionOS",
                                      "visionOS simulator"};
  return p < std::size(names) ? names[p] : "an unknown platform";
}

// A slice whose LC_BUILD_VERSION names platforms, none of them macOS (an iOS or Mac Catalyst
// build): dyld refuses it in a macOS Python ("building for macOS, but linking in object file built
// for iOS"). Zippered libraries carry macOS and Mac Catalyst both: fine.
void macho_build_platform(const BinaryFacts& b, FindingSink& s) {
  for (const auto& sl : b.slices) {
    const auto& p = sl.build_platforms;
    if (p.empty() || std::find(p.begin(), p.end(), 1u) != p.end()) continue;
    s.add("WC506",
          sl.arch + " slice is built for " + apple_platform_name(p.front()) + " (LC_BUILD_VERSION platform " +
              std::to_string(p.front()) + "; macOS is 1): a macOS Python cannot load it",
          b.path);
  }
}

void macho_rules(const WheelFacts& f, const BinaryFacts& b, const InstallSet& set, MinosGaps& gaps, FindingSink& s) {
  std::vector<PlatformTag> tags;
  for (const auto& t : f.filename.platform_tags) {
    PlatformTag p = classify_platform(to_lower(t));
    if (p.family == PlatformFamily::macos || p.family == PlatformFamily::ios) tags.push_back(p);
  }
  const bool ios =
      std::any_of(tags.begin(), tags.end(), [](const PlatformTag& p) { return p.family == PlatformFamily::ios; });
  macho_dylibs(f, b, set, ios, s);
  macho_rpaths(f, b, set, ios, s);
  if (tags.empty()) {
    s.add("WC501", "Mach-O binary in a wheel tagged for neither macOS nor iOS", b.path);
    return;
  }
  if (std::any_of(tags.begin(), tags.end(), [](const PlatformTag& p) { return p.family == PlatformFamily::macos; }))
    macho_build_platform(b, s);
  std::set<std::string> have;
  for (const auto& sl : b.slices) have.insert(sl.arch);
  for (const auto& tag : tags) {
    std::vector<std::string> need;
    if (tag.arch == "universal2")
      need = {"x86_64", "arm64"};
    else if (tag.arch == "intel")
      need = {"x86_64", "i386"};
    else if (tag.arch == "x86_64" || tag.arch == "arm64" || tag.arch == "i386")
      need = {tag.arch};
    for (const auto& a : need)
      if (!have.count(a))
        s.add("WC506",
              "tag " + std::string(family_name(tag.family)) + " ..._" + tag.arch + " needs a " + a +
                  " slice; the binary has " + join({have.begin(), have.end()}, "+"),
              b.path);
    if (tag.family != PlatformFamily::macos) continue;  // iOS minimums live in another load command
    for (const auto& sl : b.slices)
      if (need.empty() || std::find(need.begin(), need.end(), sl.arch) != need.end()) macho_minos(sl, tag, b, gaps);
  }
}

void pe_rules(const WheelFacts& f, const BinaryFacts& b, FindingSink& s) {
  std::vector<std::string> wins;
  for (const auto& t : f.filename.platform_tags) {
    PlatformTag p = classify_platform(to_lower(t));
    if (p.family == PlatformFamily::windows) wins.push_back(p.arch);
  }
  if (wins.empty()) {
    s.add("WC501", "PE (Windows) binary in a wheel not tagged for Windows", b.path);
    return;
  }
  for (const auto& a : wins)
    if (a != b.arch)
      s.add("WC507", "PE machine is " + b.arch + ", the tag says " + (a == "x86" ? "win32" : "win_" + a), b.path);
}

// A binary seen through its first bytes only: its format and architecture against the tag, and an
// executable stack; needed libraries, symbol versions, search paths and slices beyond the prefix
// are unknown, so nothing is said of them.
void headers_only_rules(const WheelFacts& f, const BinaryFacts& b, const LinuxContext* tight, bool plain_linux,
                        FindingSink& s) {
  if (b.format == "elf") {
    if (device_processor(b.arch)) return;
    if (b.exec_stack)
      s.add("WC509", "requests an executable stack (PT_GNU_STACK has PF_X); hardened kernels refuse to load it",
            b.path);
    if (tight && elf_arch_for_tag(tight->tag) != b.arch)
      s.add("WC501", "ELF machine is " + b.arch + ", the platform tag says " + tight->tag.arch, b.path);
    else if (!tight && !plain_linux)
      s.add("WC501", "ELF " + b.arch + " binary in a wheel tagged '" + join(f.filename.platform_tags, ".") + "'",
            b.path);
  } else if (b.format == "macho") {
    bool apple =
        std::any_of(f.filename.platform_tags.begin(), f.filename.platform_tags.end(), [](const std::string& t) {
          auto fam = classify_platform(to_lower(t)).family;
          return fam == PlatformFamily::macos || fam == PlatformFamily::ios;
        });
    if (!apple) s.add("WC501", "Mach-O binary in a wheel tagged for neither macOS nor iOS", b.path);
  } else if (b.format == "pe") {
    pe_rules(f, b, s);
  }
}

// A 32-bit ELF of the tag's processor family (i686 in an x86_64 wheel, ARM in an aarch64 one)
// that is no extension module and that nothing of the run loads (an executable, or a library
// under x86/ that only such executables use): a helper run as a process of its own.
bool foreign_mode_helper(const WheelFacts& f, const BinaryFacts& b, const PlatformTag& tag, const LoadGraph& graph) {
  bool narrower = (tag.arch == "x86_64" && b.arch == "i686") ||
                  (tag.arch == "aarch64" && (b.arch == "armv7l" || b.arch == "armel"));
  if (!narrower || is_extension_module(b)) return false;
  if (!b.interpreter.empty() || !graph.loaded(f, b)) return true;
  // Loaded, but only by binaries of its own 32-bit mode (the helper's libraries): still a helper.
  const std::string soname = b.soname.empty() ? std::string(last_component(b.path)) : b.soname;
  return std::none_of(f.binaries.begin(), f.binaries.end(), [&](const BinaryFacts& o) {
    return o.format == "elf" && o.arch == tag.arch &&
           std::find(o.needed.begin(), o.needed.end(), soname) != o.needed.end();
  });
}

bool platform_any(const WheelFilename& w) {
  return w.valid &&
         std::all_of(w.platform_tags.begin(), w.platform_tags.end(), [](const std::string& t) { return t == "any"; });
}

}  // namespace

void binary_rules(const WheelFacts& f, const InstallSet& set, FindingSink& s) {
  if (f.binaries.empty() || platform_any(f.filename)) return;  // content_rules judges native files of pure wheels
  std::vector<LinuxContext> linux_tags;
  bool plain_linux = false;
  for (const auto& t : f.filename.platform_tags) {
    PlatformTag p = classify_platform(to_lower(t));
    plain_linux |= p.family == PlatformFamily::linux;
    if (p.family == PlatformFamily::android && p.problem.empty()) linux_tags.push_back({p, nullptr, {}});
    if ((p.family != PlatformFamily::manylinux && p.family != PlatformFamily::musllinux) || !p.problem.empty())
      continue;
    const auto& levels =
        p.family == PlatformFamily::musllinux ? s.policy().linux.musllinux : s.policy().linux.manylinux;
    LinuxContext lx{p, level_for(levels, p), {}};
    if (lx.level)
      lx.libs = lx.level->libraries;
    else if (!levels.empty())
      lx.libs = levels.front().libraries;
    linux_tags.push_back(std::move(lx));
  }
  // The tightest tag decides: the lowest version among a compressed set is the real promise.
  const LinuxContext* tight = nullptr;
  for (const auto& lx : linux_tags)
    if (!tight || lx.tag.major < tight->tag.major ||
        (lx.tag.major == tight->tag.major && lx.tag.minor < tight->tag.minor))
      tight = &lx;
  LoadGraph graph(set);
  JustifiedTag justified = justified_platform_tag(f, s.policy());
  ElfContext cx{f, set, s.policy().cuda, graph, justified, providers_of(f, s.policy().cuda), {}, {}, {}, {}, false, {}};
  MinosGaps gaps;
  for (const auto& b : f.binaries) {
    for (const auto& e : b.errors) s.add("WC508", e, b.path);
    for (const auto& w : b.warnings) s.add("WC508", w, b.path, std::nullopt, Severity::warning);
    if (b.arch.empty()) continue;  // not parsed far enough to judge; WC508 says why
    if (b.headers_only) {          // --depth metadata: judge what the headers say, nothing they do not
      headers_only_rules(f, b, tight, plain_linux, s);
      continue;
    }
    if (b.format == "elf") {
      if (device_processor(b.arch)) continue;  // a standalone cubin (the CUDA rules), DSP or GPU code
      if (tight && foreign_mode_helper(f, b, tight->tag, graph)) {
        s.add("WC501",
              "ELF " + b.arch + " " + (b.interpreter.empty() ? "library" : "executable") + " in a " + tight->tag.arch +
                  " wheel, which no extension module is and nothing of the run loads: a helper that runs as its " +
                  "own process in the processor's " + b.arch + " mode (it needs that mode's C library there), " +
                  "never loaded into Python; not judged against the tag",
              b.path, std::nullopt, Severity::warning);
        continue;
      }
      if (!tight && plain_linux)
        continue;  // linux_* tags: WC106 says they are not portable, and names the justified tag
      if (!tight) {
        s.add("WC501", "ELF " + b.arch + " binary in a wheel tagged '" + join(f.filename.platform_tags, ".") + "'",
              b.path);
        continue;
      }
      elf_rules(cx, b, tight, s);
    } else if (b.format == "macho") {
      macho_rules(f, b, set, gaps, s);
    } else if (b.format == "pe") {
      pe_rules(f, b, s);
    }
  }
  report_dependencies(cx, s);
  if (tight) report_symbol_ceilings(cx, *tight, s);
  report_minos(gaps, s);
}

std::vector<DeclaredProvider> declared_providers(const WheelFacts& f, const Policy& p) {
  std::vector<DeclaredProvider> out;
  for (const auto& entry : providers_of(f, p.cuda)) {
    const Provider& prov = entry.first;
    if (std::none_of(out.begin(), out.end(), [&](const auto& d) { return d.name == prov.name; }))
      out.push_back({prov.name, prov.requirement, prov.specifier});
  }
  return out;
}

}  // namespace wc
