#include "rules/metadata/platform_tag.h"

#include <set>

#include "binary/binary_facts.h"
#include "rules/loader/resolution.h"
#include "util/parse.h"
#include "util/strings.h"

namespace wc {
namespace {

bool is_linux_wheel(const WheelFilename& w) {
  for (const auto& t : w.platform_tags) {
    auto fam = classify_platform(to_lower(t)).family;
    if (fam == PlatformFamily::manylinux || fam == PlatformFamily::musllinux || fam == PlatformFamily::linux)
      return true;
  }
  return false;
}

// The dynamic loader itself is never an external library (auditwheel skips it too).
bool is_loader(const std::string& soname) {
  return soname.find("ld-linux") != std::string::npos || soname.rfind("ld64.so.", 0) == 0 ||
         soname.rfind("ld-musl-", 0) == 0 || soname.rfind("libc.musl-", 0) == 0;  // musl's libc is its loader
}

// What every binary shares, or the reason a portable tag cannot be named.
struct Shape {
  std::string arch, libc;  // libc: "glibc", "musl" or "" (no binary says)
  std::string why;
};

Shape shape_of(const std::vector<const BinaryFacts*>& elves) {
  Shape s;
  for (const auto* b : elves) {
    if (!s.arch.empty() && b->arch != s.arch)
      return {"", "", "binaries of two architectures (" + s.arch + ", " + b->arch + ")"};
    s.arch = b->arch;
    if (!b->libc.empty()) {
      if (!s.libc.empty() && b->libc != s.libc) return {"", "", "binaries linked against both glibc and musl"};
      s.libc = b->libc;
    }
  }
  return s;
}

// Binaries that name no libc (no interpreter, no libc dependency): the extension modules' suffix
// says which CPython they were built for, as auditwheel reads it (x86_64-linux-musl, arm-linux-
// gnueabihf; before CPython 3.11 musl builds also said -linux-gnu, so only 3.11+ counts as glibc).
std::string libc_from_names(const std::vector<const BinaryFacts*>& elves) {
  for (const auto* b : elves) {
    const std::string& n = b->path;
    if (n.ends_with("-linux-musl.so") || n.ends_with("-arm-linux-musleabihf.so")) return "musl";
    if (n.ends_with("-linux-gnu.so") || n.ends_with("-arm-linux-gnueabihf.so")) {
      auto c = n.rfind(".cpython-");
      if (c == std::string::npos) continue;
      std::string_view v = std::string_view(n).substr(c + 9);
      if (v.size() >= 3 && v[0] == '3' && digit_prefix(v.substr(1)) >= 2 &&
          parse_small(v.substr(1, digit_prefix(v.substr(1))), 999).value_or(0) >= 11)
        return "glibc";
    }
  }
  return "";
}

// Libraries the binaries need from outside the wheel (not shipped, not the loader).
std::set<std::string> external_needs(const WheelFacts& f, const std::vector<const BinaryFacts*>& elves) {
  std::set<std::string> out;
  const std::vector<const WheelFacts*> self{&f};
  for (const auto* b : elves)
    for (const auto& need : b->needed)
      if (!is_loader(need) && !resolve_needed(*b, need, self)) out.insert(need);
  return out;
}

// The first reason `level` cannot hold these binaries, or "" when it can.
std::string level_refuses(const LinuxLevel& l, const std::string& family, const Shape& shape,
                          const std::set<std::string>& external, const std::vector<const BinaryFacts*>& elves) {
  std::string name = family + "_" + std::to_string(l.major) + "_" + std::to_string(l.minor);
  if (!l.arches.count(shape.arch)) return name + " is not defined for " + shape.arch;
  for (const auto& lib : external)
    if (std::find(l.libraries.begin(), l.libraries.end(), lib) == l.libraries.end())
      return "needs " + lib + ", which is neither in the wheel nor a system library any " + family + " level allows";
  for (const auto* b : elves) {
    for (const auto& [prefix, have] : b->max_symbol_versions()) {
      std::string ceiling = l.ceiling(shape.arch, prefix);
      if (!ceiling.empty() && compare_dotted(have, ceiling) > 0) return b->path + " needs " + prefix + "_" + have;
    }
    for (const auto& [lib, symbols] : l.blacklist) {
      if (std::find(b->needed.begin(), b->needed.end(), lib) == b->needed.end()) continue;
      for (const auto u : imported_names(*b))
        if (symbols.count(std::string(u)))
          return b->path + " takes " + std::string(u) + " from " + lib + ", which " + name + " does not guarantee";
    }
  }
  return "";
}

// re.match's reading of `(\d+)_`: one or more ASCII digits and '_', consumed from `s`.
std::optional<std::string_view> digits_then_underscore(std::string_view& s) {
  size_t n = digit_prefix(s);
  if (n == 0 || n >= s.size() || s[n] != '_') return std::nullopt;
  std::string_view d = s.substr(0, n);
  s.remove_prefix(n + 1);
  return d;
}

std::string listed(const std::set<std::string>& items) {
  return join(std::vector<std::string>(items.begin(), items.end()), ", ");
}

}  // namespace

const std::map<std::string, std::string>& pypi_platform_regexes_implemented() {
  static const std::map<std::string, std::string> r = {
      {"android", "android_(\\d+)_(?P<arch>.*)"},
      {"ios", "ios_(\\d+)_(\\d+)_(?P<arch>.*)_(iphoneos|iphonesimulator)"},
      {"linux", "(?P<libc>(many|musl))linux_(\\d+)_(\\d+)_(?P<arch>.*)"},
      {"macosx", "macosx_(?P<major>\\d+)_(?P<minor>\\d+)_(?P<arch>.*)"},
      {"pyemscripten", "pyemscripten_(?P<major>\\d+)_(?P<minor>\\d+)_wasm32"},
  };
  return r;
}

// Warehouse matches with re.match: anchored at the start only, so what follows a full match is
// ignored, and `.*` takes the longest arch that lets the rest match.
std::string pypi_platform_refusal(std::string_view tag, const PypiPlatforms& d) {
  if (!d.known() || d.static_tags.count(std::string(tag))) return "";
  std::string_view rest = tag;
  if (consume(rest, "macosx_")) {
    auto major = digits_then_underscore(rest);
    auto minor = major ? digits_then_underscore(rest) : std::nullopt;
    if (minor) {
      std::string arch(rest);
      if (!d.macosx_arches.count(arch))
        return "PyPI accepts macOS wheels for the architectures " + listed(d.macosx_arches) + " only";
      if (*major == "10") return "";
      if (!d.macosx_major_versions.count(std::string(*major)))
        return "PyPI accepts macOS 10 and the majors " + listed(d.macosx_major_versions) + " only";
      if (*minor != "0") return "PyPI accepts macOS " + std::string(*major) + " only as " + std::string(*major) + "_0";
      return "";
    }
  }
  rest = tag;
  const bool musl = consume(rest, "musllinux_"), many = !musl && consume(rest, "manylinux_");
  if (musl || many) {
    auto major = digits_then_underscore(rest);
    if (major && digits_then_underscore(rest)) {
      const auto& arches = musl ? d.musllinux_arches : d.manylinux_arches;
      if (arches.count(std::string(rest))) return "";
      return std::string("PyPI accepts ") + (musl ? "musllinux" : "manylinux") + " wheels for " + listed(arches) +
             " only";
    }
  }
  rest = tag;
  if (consume(rest, "ios_") && digits_then_underscore(rest) && digits_then_underscore(rest)) {
    size_t at = std::string_view::npos;  // the last '_iphoneos' or '_iphonesimulator': the longest arch
    for (size_t p = rest.rfind('_'); p != std::string_view::npos && p > 0; p = rest.rfind('_', p - 1))
      if (rest.substr(p).starts_with("_iphoneos") || rest.substr(p).starts_with("_iphonesimulator")) {
        at = p;
        break;
      }
    if (at != std::string_view::npos && d.ios_arches.count(std::string(rest.substr(0, at)))) return "";
  }
  rest = tag;
  if (consume(rest, "android_") && digits_then_underscore(rest) && d.android_arches.count(std::string(rest))) return "";
  rest = tag;
  if (consume(rest, "pyemscripten_") && digits_then_underscore(rest) && digits_then_underscore(rest) &&
      rest.starts_with("wasm32"))
    return "";
  return "not a platform tag PyPI's upload accepts";
}

JustifiedTag justified_platform_tag(const WheelFacts& f, const Policy& p) {
  JustifiedTag out;
  if (!f.filename.valid || !is_linux_wheel(f.filename)) return out;
  std::vector<const BinaryFacts*> elves;
  for (const auto& b : f.binaries)
    if (b.format == "elf" && !device_processor(b.arch) && (b.elf_type == "dyn" || b.elf_type == "exec"))
      elves.push_back(&b);
  if (elves.empty()) return out;
  for (const auto* b : elves)
    if (b->headers_only) return out;  // --depth metadata: the symbol versions were not read
  out.applies = true;
  auto fail = [&](std::string why) {
    out.why = std::move(why);
    return out;
  };
  for (const auto* b : elves)
    if (!b->errors.empty()) return fail(b->path + " cannot be parsed");
  Shape shape = shape_of(elves);
  if (!shape.why.empty()) return fail(shape.why);
  if (shape.libc.empty()) shape.libc = libc_from_names(elves);
  // Interpreter features only some CPython builds have (auditwheel's pyfpe and UCS-2 checks).
  for (const auto* b : elves)
    for (const auto u : imported_names(*b))
      if (u == "PyFPE_jbuf" || u.starts_with("PyUnicodeUCS2_"))
        return fail(b->path + " uses " + std::string(u) + ", which only some CPython builds provide");
  if (shape.arch == "x86_64")
    for (const auto* b : elves)
      if (b->x86_isa_level && *b->x86_isa_level > p.linux.x86_64_isa_baseline)
        return fail(b->path + " needs x86-64-v" + std::to_string(*b->x86_isa_level) +
                    " instructions, beyond every manylinux baseline");
  auto external = external_needs(f, elves);
  bool musl = shape.libc == "musl";
  const auto& levels = musl ? p.linux.musllinux : p.linux.manylinux;
  std::string why;
  if (musl) {
    // musl binaries carry no symbol versions that say which musl they need; like auditwheel, name
    // the newest level that defines the architecture.
    for (auto it = levels.rbegin(); it != levels.rend(); ++it) {
      std::string r = level_refuses(*it, "musllinux", shape, external, elves);
      if (r.empty())
        return out.tag = "musllinux_" + std::to_string(it->major) + "_" + std::to_string(it->minor) + "_" + shape.arch,
               out;
      if (why.empty()) why = r;
    }
    return fail(why);
  }
  for (const auto& l : levels) {  // oldest first: the first that fits is the most compatible
    std::string r = level_refuses(l, "manylinux", shape, external, elves);
    if (r.empty())
      return out.tag = "manylinux_" + std::to_string(l.major) + "_" + std::to_string(l.minor) + "_" + shape.arch, out;
    why = r;  // the newest level's reason is the one that matters
  }
  return fail(why.empty() ? "no manylinux level is defined" : why);
}

}  // namespace wc
