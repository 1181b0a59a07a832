// WC501-WC510: native binaries against the platform tag, the policy's platform tables and the
// wheels installed with them. Calibrated on real releases (torch, jaxlib, scipy, numpy, lxml):
//  - a needed library resolves through RPATH/RUNPATH across the install set (one platform, one
//    Python); one a declared dependency provides is a warning naming the dependency; an unmet need
//    of a library nothing loads is a warning that says so;
//  - RPATH entries that leave the install tree are reported once per binary: an error when the
//    binary still misses a library, a warning when they are dead;
//  - platform-independent wheels get no architecture or library verdicts (content_rules says what
//    their native files are).
#include <algorithm>
#include <iterator>
#include <map>
#include <set>

#include "binary/binary_facts.h"
#include "rules/dylib_resolution.h"
#include "rules/platform_tag.h"
#include "rules/resolution.h"
#include "rules/rules.h"
#include "util/parse.h"
#include "util/strings.h"
#include "wheel/entry_names.h"
#include "wheel/requirement.h"

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

struct Missing {
  bool error = false;                // a library a loaded binary needs is nowhere
  std::vector<std::string> sonames;  // every need left unresolved (errors and warnings)
};

// WC503 for one binary's needed libraries.
Missing needed_libraries(ElfContext& cx, const BinaryFacts& b, const LinuxContext* lx, FindingSink& s) {
  const Policy& pol = s.policy();
  auto dirs = search_dirs(b);
  Missing missing;
  std::map<std::string, std::pair<std::vector<std::string>, std::string>> candidate_needs;  // env -> needs, where
  for (const auto& need : b.needed) {
    if (lx && std::find(lx->libs.begin(), lx->libs.end(), need) != lx->libs.end()) continue;
    if (glob_any(pol.linux.allowed_libraries, need) || glob_any(pol.cuda.driver_libraries, need)) continue;
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
        for (const auto& [prov, globs] : provs)
          if (!by && glob_any(globs, need) && provider_admits(prov.name, prov.specifier, need) &&
              std::none_of(cx.set.wheels.begin(), cx.set.wheels.end(), [&](const WheelFacts* u) {
                return u->filename.valid && u->filename.canonical_name == prov.name;
              }))
            by = &prov;
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
    std::string where = dirs.empty() ? "it has no RPATH or RUNPATH" : "searched " + describe_dirs(dirs);
    std::string system =
        lx ? "not a system library " + lx->name() + " allows" : "not a system library the policy allows";
    missing.sonames.push_back(need);
    // A library nothing of the run links, in a wheel whose Python loads none of its libraries by
    // name, needing one of an environment the run lacks (bitsandbytes' _cuda118.so beside a CUDA 13
    // torch, cuDSS's MPI layer): a variant or layer a loader picks at run time where that
    // environment exists. Its symbols still have to bind wherever it loads (WC514).
    if (std::string env = environment_of(need);
        !env.empty() && (cx.graph.candidate(cx.f, b) || !cx.graph.loaded(cx.f, b))) {
      auto& slot = candidate_needs[env];
      slot.first.push_back(need);
      slot.second = where;
      continue;
    }
    if (!cx.graph.loaded(cx.f, b)) {
      s.add("WC503",
            "needs " + need + ", which is nowhere in the wheel or its install set (" + where + "; " + system +
                "); nothing in them links " + install_path(b.path) +
                " (a plugin or a leftover?), so this fails only where something loads it",
            b.path, std::nullopt, Severity::warning);
      continue;
    }
    missing.error = true;
    s.add("WC503",
          "needs " + need + ", which is not found: " + where + "; " + system +
              (dependency_present ? "; the wheel that provides it is in the set, but not where the search path looks"
                                  : dep_lacks) +
              justified_note(cx.justified),
          b.path);
  }
  for (const auto& [env, slot] : candidate_needs)
    s.add("WC503",
          "needs " + join(slot.first, ", ") + ", of " + env + ", which nothing in the run provides (" + slot.second +
              "); nothing in the run links " + install_path(b.path) + ", so it is a candidate a loader picks at run " +
              "time where " + env + " is installed, and it fails to load anywhere else",
          b.path, std::nullopt, Severity::warning);
  return missing;
}

// WC504, once per binary: entries that leave the install tree or name the build machine. An error
// when the binary misses a library something loads it for (it may then come from there), a
// warning otherwise.
void search_path_safety(const BinaryFacts& b, const Missing& missing, FindingSink& s) {
  std::vector<SearchDir> bad;
  for (const auto& d : search_dirs(b))
    if (!d.resolved) bad.push_back(d);
  if (bad.empty()) return;
  std::string list = describe_dirs(bad);
  if (!missing.sonames.empty())
    s.add("WC504",
          "RPATH/RUNPATH entries outside the install tree: " + list + "; the binary misses " +
              join(missing.sonames, ", ") + " (WC503), which may then come from there on a machine that has it",
          b.path, std::nullopt, missing.error ? Severity::error : Severity::warning);
  else
    s.add("WC504",
          "dead RPATH/RUNPATH entries outside the install tree: " + list +
              "; every library it needs resolves without them, but a directory there would be searched first",
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
  Missing missing = needed_libraries(cx, b, lx, s);
  search_path_safety(b, missing, s);
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
// Absolute LC_RPATHs outside the install tree (mindspore's /Applications/Xcode.app/...) are WC504,
// by the rule the ELF binaries follow: an error when the slice misses a dylib that may then come
// from there, a warning when every dylib resolves without them.
struct MachOMissing {
  std::vector<std::string> dylibs;  // not found (errors and warnings)
  bool error = false;               // one of them is WC503's error
};

MachOMissing macho_dylibs(const WheelFacts& f, const BinaryFacts& b, const MachOSlice& sl, const InstallSet& set,
                          bool ios, FindingSink& s) {
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
  std::vector<std::string> missing;
  bool missing_error = false;
  for (const auto& d : sl.dylibs) {
    std::string leaf(last_component(d));
    if (find_dylib(f, b, sl, d, set, s.policy(), ios).where != DylibFound::Where::nowhere) continue;
    if (std::find(sl.weak_dylibs.begin(), sl.weak_dylibs.end(), d) != sl.weak_dylibs.end()) continue;
    missing.push_back(d);
    // Only an @rpath name can be met by another wheel's copy (dyld searches the LC_RPATHs); an
    // absolute build-machine path stays an error whatever is installed.
    std::string dep = d.rfind("@rpath/", 0) == 0 ? absent_dependency_for(f, set, s.policy(), leaf) : "";
    if (dep.empty() && d.rfind("@rpath/", 0) == 0 && host_plugin) {
      s.add("WC503",
            sl.arch + " slice loads " + d + ", which nothing of the run provides; " + install_path(b.path) +
                " is a plugin (no extension module in the wheel, nothing of it loads this one), so the host "
                "application that loads it provides that image (tensorflow-metal's @rpath/"
                "_pywrap_tensorflow_internal.so is TensorFlow's): it fails only in a host without it",
            b.path, std::nullopt, Severity::warning);
      continue;
    }
    if (!dep.empty()) {
      s.add("WC503",
            sl.arch + " slice loads " + d + ", which comes from the dependency " + dep +
                " (declared in Requires-Dist), whose wheel is not in the checked set",
            b.path, std::nullopt, Severity::warning);
    } else {
      missing_error = true;
      s.add("WC503",
            sl.arch + " slice loads " + d +
                ", which is neither a system library nor shipped where its install name points" +
                (d.rfind("@rpath/", 0) == 0 ? " (no image loaded under that install name, no LC_RPATH of it or of "
                                              "what loads it reaches it)"
                                            : ""),
            b.path);
    }
  }
  return {missing, missing_error};
}

// WC504 for a Mach-O binary, once over its slices: absolute LC_RPATHs outside the install tree.
void macho_rpaths(const BinaryFacts& b, const std::vector<std::string>& missing, bool missing_error, FindingSink& s) {
  const auto& prefixes = s.policy().macos.system_prefixes;
  std::vector<std::string> absolute;
  for (const auto& sl : b.slices)
    for (const auto& r : sl.rpaths)
      if (!r.empty() && r[0] == '/' &&
          std::none_of(prefixes.begin(), prefixes.end(), [&](const std::string& p) { return r.rfind(p, 0) == 0; }) &&
          std::find(absolute.begin(), absolute.end(), r + " (absolute)") == absolute.end())
        absolute.push_back(r + " (absolute)");
  if (absolute.empty()) return;
  if (!missing.empty())
    s.add("WC504",
          "LC_RPATH entries outside the install tree: " + join(absolute, ", ") + "; it misses " + join(missing, ", ") +
              " (WC503), which may then come from there on a machine that has it",
          b.path, std::nullopt, missing_error ? Severity::error : Severity::warning);
  else
    s.add("WC504",
          "dead LC_RPATH entries outside the install tree: " + join(absolute, ", ") +
              "; every dylib it loads resolves without them, but dyld searches there for each @rpath name (a folder "
              "of that name on the user's machine would be used)",
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
  std::vector<std::string> missing;
  bool missing_error = false;
  for (const auto& sl : b.slices) {
    MachOMissing m = macho_dylibs(f, b, sl, set, ios, s);
    for (auto& d : m.dylibs)
      if (std::find(missing.begin(), missing.end(), d) == missing.end()) missing.push_back(std::move(d));
    missing_error |= m.error;
  }
  macho_rpaths(b, missing, missing_error, s);
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
