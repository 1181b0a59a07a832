#include "rules/install_set.h"

#include "util/parse.h"
#include "util/strings.h"

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
      r.hi = cp && abi3 ? 1 << 20 : r.lo;
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

InstallSet install_set_for(const WheelFacts& f, const std::vector<WheelFacts>& all) {
  InstallSet set;
  bool self = false;
  for (const auto& w : all)
    if (installable_together(f, w)) {
      set.wheels.push_back(&w);
      self |= &w == &f;
    }
  if (!self) set.wheels.push_back(&f);
  return set;
}

}  // namespace wc
