// WC501-WC510: native binaries against the platform tag and the policy's platform tables.
#include <filesystem>
#include <set>

#include "binary/binary_facts.h"
#include "rules/rules.h"
#include "util/parse.h"
#include "util/strings.h"

namespace wc {
namespace {

// Expected ELF arch for a Linux tag's arch part (they use the same spelling except armv7l).
bool elf_arch_matches(const std::string& tag_arch, const std::string& elf_arch) { return tag_arch == elf_arch; }

bool glob_any(const std::vector<std::string>& globs, const std::string& name) {
  return std::any_of(globs.begin(), globs.end(), [&](const std::string& g) { return glob_match(g, name); });
}

// The level a tag promises: the newest table row at or below its glibc version (PEP 600 allows
// levels between rows, e.g. manylinux_2_18). Symbol ceilings come from that row, except GLIBC,
// which is the tag's own version.
const LinuxLevel* level_for(const std::vector<LinuxLevel>& levels, const PlatformTag& tag) {
  const LinuxLevel* best = nullptr;
  for (const auto& l : levels)
    if (l.major < tag.major || (l.major == tag.major && l.minor <= tag.minor)) best = &l;
  return best;
}

// Where a wheel entry lands in the install tree: {name}.data/{purelib,platlib}/x -> x.
std::string install_path(const std::string& entry) {
  auto slash = entry.find('/');
  if (slash == std::string::npos) return entry;
  std::string top = entry.substr(0, slash);
  if (!top.ends_with(".data")) return entry;
  for (const char* scheme : {"/purelib/", "/platlib/"})
    if (entry.compare(slash, std::strlen(scheme), scheme) == 0) return entry.substr(slash + std::strlen(scheme));
  return "";  // scripts, headers, data: not on the library search path we model
}

// Normalises "a/b/../c" inside the install tree; nullopt when it climbs out.
std::optional<std::string> normalise(const std::string& path) {
  std::vector<std::string> out;
  for (auto part : split(path, '/')) {
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (out.empty()) return std::nullopt;
      out.pop_back();
    } else {
      out.emplace_back(part);
    }
  }
  return join(out, "/");
}

std::string dir_of(const std::string& install_path) {
  auto slash = install_path.rfind('/');
  return slash == std::string::npos ? "" : install_path.substr(0, slash);
}

// Resolves "$ORIGIN/../x" from the directory of `binary` (an install path). Returns nullopt when
// the path leaves the install tree; absolute paths return "" (caller reports them).
std::optional<std::string> resolve_rpath(const std::string& rpath, const std::string& binary) {
  for (const char* origin : {"${ORIGIN}", "$ORIGIN"})
    if (rpath.rfind(origin, 0) == 0) return normalise(dir_of(binary) + rpath.substr(std::strlen(origin)));
  return std::string();
}

struct LibraryIndex {
  std::set<std::string> paths;  // install paths of every file in the wheel and the install set
  explicit LibraryIndex(const WheelFacts& f, const InstallSet& set) {
    add(f);
    for (const auto* w : set.wheels)
      if (w != &f) add(*w);
  }
  void add(const WheelFacts& w) {
    for (const auto& e : w.entries) {
      std::string p = install_path(e.name);
      if (!p.empty()) paths.insert(p);
    }
  }
};

struct LinuxContext {
  PlatformTag tag;
  const LinuxLevel* level = nullptr;
  std::vector<std::string> libs;
  std::string ceiling(const std::string& arch, const std::string& prefix) const {
    if (prefix == "GLIBC" && tag.family == PlatformFamily::manylinux)
      return std::to_string(tag.major) + "." + std::to_string(tag.minor);
    return level ? level->ceiling(arch, prefix) : "";
  }
};

void elf_rules(const WheelFacts& f, const BinaryFacts& b, const LinuxContext* lx, const LibraryIndex& index, FindingSink& s) {
  const Policy& pol = s.policy();
  if (b.exec_stack) s.add("WC509", "requests an executable stack (PT_GNU_STACK has PF_X); hardened kernels refuse to load it", b.path);
  if (!lx) {
    bool any = f.filename.platform_tags.size() == 1 && f.filename.platform_tags[0] == "any";  // WC105 says it
    if (!any && (b.elf_type == "dyn" || b.elf_type == "exec")) {
      std::string tags = join(f.filename.platform_tags, ".");
      s.add("WC501", "ELF " + b.arch + " binary in a wheel tagged '" + tags + "'", b.path);
    }
    return;
  }
  if (!elf_arch_matches(lx->tag.arch, b.arch))
    s.add("WC501", "ELF machine is " + b.arch + ", the platform tag says " + lx->tag.arch, b.path);
  bool musl_tag = lx->tag.family == PlatformFamily::musllinux;
  if (!b.libc.empty() && (b.libc == "musl") != musl_tag)
    s.add("WC505", "binary is linked against " + b.libc + ", the tag is " + family_name(lx->tag.family), b.path);
  if (!musl_tag) {
    for (const auto& [prefix, have] : b.max_symbol_versions()) {
      std::string ceiling = lx->ceiling(lx->tag.arch, prefix);
      if (ceiling.empty()) continue;
      if (compare_dotted(have, ceiling) > 0) {
        std::vector<std::string> offenders;
        for (const auto& [lib, vers] : b.version_needs)
          for (const auto& v : vers)
            if (v.rfind(prefix + "_", 0) == 0 && compare_dotted(v.substr(prefix.size() + 1), ceiling) > 0) offenders.push_back(v);
        std::sort(offenders.begin(), offenders.end());
        offenders.erase(std::unique(offenders.begin(), offenders.end()), offenders.end());
        s.add("WC502", "needs " + prefix + "_" + have + ", newer than manylinux_" + std::to_string(lx->tag.major) + "_" +
                           std::to_string(lx->tag.minor) + " allows (" + prefix + " " + ceiling + "): " + join(offenders, ", "),
              b.path);
      }
    }
  }
  std::string here = install_path(b.path);
  std::vector<std::string> search;
  for (const auto* list : {&b.rpath, &b.runpath}) {
    for (const auto& r : *list) {
      if (r.empty()) continue;
      auto resolved = resolve_rpath(r, here);
      if (!resolved) s.add("WC504", "RPATH/RUNPATH '" + r + "' points outside the install tree", b.path);
      else if (resolved->empty()) s.add("WC504", "RPATH/RUNPATH '" + r + "' is absolute: the wheel depends on the build machine's layout", b.path);
      else search.push_back(*resolved);
    }
  }
  for (const auto& need : b.needed) {
    if (std::find(lx->libs.begin(), lx->libs.end(), need) != lx->libs.end()) continue;
    if (glob_any(pol.linux.allowed_libraries, need)) continue;
    if (glob_any(pol.cuda.driver_libraries, need)) continue;
    bool found = std::any_of(search.begin(), search.end(), [&](const std::string& dir) {
      return index.paths.count(dir.empty() ? need : dir + "/" + need) > 0;
    });
    // auditwheel's layout: bundled libraries sit together in <pkg>.libs/ and are loaded as
    // dependencies of an extension whose RPATH points there; the loader then finds a sibling's
    // soname among the objects already loaded.
    std::string dir = dir_of(here);
    found = found || (!here.empty() && index.paths.count(dir.empty() ? need : dir + "/" + need) > 0);
    if (!found)
      s.add("WC503", "needs " + need + ", which is neither a system library the tag allows nor reachable through its RPATH/RUNPATH" +
                         (search.empty() ? " (it has none)" : " (" + join(search, ":") + ")"),
            b.path);
  }
  if (lx->tag.arch == "x86_64" && b.x86_isa_level) {
    unsigned baseline = pol.linux.x86_64_isa_baseline;
    if (*b.x86_isa_level > baseline)
      s.add("WC510", "needs x86-64-v" + std::to_string(*b.x86_isa_level) + " instructions; manylinux x86_64 promises only the baseline", b.path);
  }
}

// macOS install names: system libraries by prefix; @loader_path/X next to the binary; @rpath/X
// through the slice's LC_RPATHs. Anything else (/opt/homebrew/..., /usr/local/...) exists only on
// the build machine.
void macho_dylibs(const BinaryFacts& b, const MachOSlice& sl, const LibraryIndex& index, FindingSink& s) {
  std::string dir = dir_of(install_path(b.path));
  auto loader_relative = [&](const std::string& rest) { return normalise(dir + "/" + rest); };
  const auto& prefixes = s.policy().macos.system_prefixes;
  for (const auto& d : sl.dylibs) {
    if (std::any_of(prefixes.begin(), prefixes.end(), [&](const std::string& p) { return d.rfind(p, 0) == 0; })) continue;
    bool found = false;
    if (d.rfind("@loader_path/", 0) == 0) {
      auto p = loader_relative(d.substr(13));
      found = p && index.paths.count(*p);
    } else if (d.rfind("@rpath/", 0) == 0) {
      for (const auto& r : sl.rpaths) {
        std::optional<std::string> base = r.rfind("@loader_path", 0) == 0 ? loader_relative(r.substr(std::min<size_t>(r.size(), 13)))
                                                                          : std::nullopt;
        if (base && index.paths.count(*base + (base->empty() ? "" : "/") + d.substr(7))) found = true;
      }
    }
    if (!found)
      s.add("WC503", sl.arch + " slice loads " + d + ", which is neither a system library nor shipped where its install name points",
            b.path);
  }
}

void macho_rules(const WheelFacts& f, const BinaryFacts& b, const LibraryIndex& index, FindingSink& s) {
  for (const auto& sl : b.slices) macho_dylibs(b, sl, index, s);
  std::vector<PlatformTag> macs;
  for (const auto& t : f.filename.platform_tags) {
    PlatformTag p = classify_platform(to_lower(t));
    if (p.family == PlatformFamily::macos) macs.push_back(p);
  }
  if (macs.empty()) {
    s.add("WC501", "Mach-O binary in a wheel not tagged for macOS", b.path);
    return;
  }
  std::set<std::string> have;
  for (const auto& sl : b.slices) have.insert(sl.arch);
  for (const auto& tag : macs) {
    std::vector<std::string> need;
    if (tag.arch == "universal2") need = {"x86_64", "arm64"};
    else if (tag.arch == "intel") need = {"x86_64", "i386"};
    else if (tag.arch == "x86_64" || tag.arch == "arm64" || tag.arch == "i386") need = {tag.arch};
    for (const auto& a : need)
      if (!have.count(a)) s.add("WC506", "tag macosx_..._" + tag.arch + " needs a " + a + " slice; the binary has " + join({have.begin(), have.end()}, "+"), b.path);
    for (const auto& sl : b.slices) {
      if (sl.minos.empty() || (!need.empty() && std::find(need.begin(), need.end(), sl.arch) == need.end())) continue;
      std::string tagv = std::to_string(tag.major) + "." + std::to_string(tag.minor);
      if (compare_dotted(sl.minos, tagv) > 0)
        s.add("WC506", sl.arch + " slice needs macOS " + sl.minos + " (LC_BUILD_VERSION minos), the tag promises " + tagv, b.path);
    }
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
    if (a != b.arch) s.add("WC507", "PE machine is " + b.arch + ", the tag says " + (a == "x86" ? "win32" : "win_" + a), b.path);
}

}  // namespace

void binary_rules(const WheelFacts& f, const InstallSet& set, FindingSink& s) {
  if (f.binaries.empty()) return;
  LibraryIndex index(f, set);
  std::vector<LinuxContext> linux_tags;
  for (const auto& t : f.filename.platform_tags) {
    PlatformTag p = classify_platform(to_lower(t));
    if (p.family != PlatformFamily::manylinux && p.family != PlatformFamily::musllinux) continue;
    if (!p.problem.empty()) continue;
    const auto& levels = p.family == PlatformFamily::musllinux ? s.policy().linux.musllinux : s.policy().linux.manylinux;
    LinuxContext lx{p, level_for(levels, p), {}};
    if (lx.level) lx.libs = lx.level->libraries;
    else if (!levels.empty()) lx.libs = levels.front().libraries;
    linux_tags.push_back(std::move(lx));
  }
  // linux_* tags (already WC106) still get ELF checks other than symbol ceilings.
  bool plain_linux = std::any_of(f.filename.platform_tags.begin(), f.filename.platform_tags.end(),
                                 [](const std::string& t) { return t.rfind("linux_", 0) == 0; });
  for (const auto& b : f.binaries) {
    for (const auto& e : b.errors) s.add("WC508", e, b.path);
    if (b.arch.empty()) continue;  // not parsed far enough to judge; WC508 says why
    if (b.format == "elf") {
      if (b.arch == "cuda") continue;  // a standalone cubin: GPU code, checked by the CUDA rules
      if (linux_tags.empty() && plain_linux) continue;
      if (linux_tags.empty()) elf_rules(f, b, nullptr, index, s);
      // The tightest tag decides: the lowest glibc among a compressed set is the real promise.
      const LinuxContext* tight = nullptr;
      for (const auto& lx : linux_tags)
        if (!tight || lx.tag.major < tight->tag.major || (lx.tag.major == tight->tag.major && lx.tag.minor < tight->tag.minor))
          tight = &lx;
      if (tight) elf_rules(f, b, tight, index, s);
    } else if (b.format == "macho") {
      macho_rules(f, b, index, s);
    } else if (b.format == "pe") {
      pe_rules(f, b, s);
    }
  }
}

}  // namespace wc
