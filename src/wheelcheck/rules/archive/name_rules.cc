// WC101 filename grammar, WC105 tag consistency (python/abi), WC106 platform tags, WC107 style,
// WC108 local versions.
#include "rules/metadata/platform_tag.h"
#include "rules/rules.h"
#include "util/parse.h"
#include "util/strings.h"

namespace wc {
namespace {

struct CpTag {
  int major = 0, minor = 0;
  bool valid = false;
};

// "cp312" -> 3.12; "cp27" -> 2.7 (one major digit, the rest is the minor).
CpTag parse_cp(std::string_view t) {
  CpTag c;
  if (!consume(t, "cp")) return c;
  size_t n = digit_prefix(t);
  if (n < 2) return c;
  auto minor = parse_small(t.substr(1, n - 1), 9999);
  if (!minor) return c;
  c.major = t[0] - '0';
  c.minor = *minor;
  c.valid = true;
  return c;
}

// CPython ABI tags: cp{X}{Y}[t][d][m][u] (e.g. cp312, cp313t, cp37m, cp27mu).
struct CpAbi {
  int major = 0, minor = 0;
  bool free_threaded = false;
};
std::optional<CpAbi> parse_cp_abi(std::string_view a) {
  CpTag c = parse_cp(a);
  if (!c.valid) return std::nullopt;
  std::string_view flags = a.substr(2 + digit_prefix(a.substr(2)));
  CpAbi out{c.major, c.minor, consume(flags, "t")};
  for (char f : {'d', 'm', 'u'})
    if (!flags.empty() && flags.front() == f) flags.remove_prefix(1);
  if (!flags.empty()) return std::nullopt;
  return out;
}

// cp/pp/py followed by digits that are not a version any interpreter has (over four digits).
bool absurd_version_tag(std::string_view t) {
  if (!consume(t, "cp") && !consume(t, "pp") && !consume(t, "py")) return false;
  size_t n = digit_prefix(t);
  return n > 4;
}

void abi_rules(const WheelFilename& w, FindingSink& s) {
  for (const auto& py : w.python_tags)
    if (absurd_version_tag(to_lower(py)))
      s.add("WC105", "python tag '" + clip_for_display(py, 40) + "' names no CPython version");
  for (const auto& abi : w.abi_tags) {
    std::string a = to_lower(abi);
    if (absurd_version_tag(a)) {
      s.add("WC105", "ABI tag '" + clip_for_display(abi, 40) + "' names no CPython version");
      continue;
    }
    if (a == "abi3") {
      for (const auto& py : w.python_tags) {
        CpTag c = parse_cp(to_lower(py));
        if (!c.valid)
          s.add("WC105", "abi3 is CPython's stable ABI, but the python tag is '" + py + "'");
        else if (c.major != 3 || c.minor < 2)
          s.add("WC105", "abi3 needs CPython 3.2 or later, python tag is '" + py + "'");
      }
      continue;
    }
    auto cp = parse_cp_abi(a);
    if (!cp) continue;
    int major = cp->major, minor = cp->minor;
    bool free_threaded = cp->free_threaded;
    if (free_threaded && (major != 3 || minor < 13))
      s.add("WC105", "free-threaded ABI '" + abi + "' needs CPython 3.13 or later");
    for (const auto& py : w.python_tags) {
      CpTag c = parse_cp(to_lower(py));
      if (c.valid && (c.major != major || c.minor != minor))
        s.add("WC105", "ABI tag '" + abi + "' is for CPython " + std::to_string(major) + "." + std::to_string(minor) +
                           " but the python tag is '" + py + "'");
      if (!c.valid && !to_lower(py).starts_with("cp"))
        s.add("WC105", "CPython ABI tag '" + abi + "' with non-CPython python tag '" + py + "'");
    }
  }
}

}  // namespace

void name_rules(const WheelFacts& f, FindingSink& s) {
  const WheelFilename& w = f.filename;
  if (!w.valid) {
    s.add("WC101", "file name '" + clip_for_display(w.raw, 200) + "': " + w.error);
    return;
  }
  for (const auto& p : w.style_problems) s.add("WC107", p);
  if (w.version && !w.version->local.empty())
    s.add("WC108", "local version '+" + join(w.version->local, ".") + "' (PyPI rejects local versions)");
  for (const auto& plat : w.platform_tags) {
    PlatformTag p = classify_platform(to_lower(plat));
    if (p.problem.empty()) {
      // A tag of a known shape that PyPI's upload still refuses (its architecture lists).
      if (std::string why = pypi_platform_refusal(to_lower(plat), s.policy().pypi_platforms); !why.empty())
        s.add("WC106", "platform tag '" + plat + "': " + why + " (" + s.policy().pypi_platforms.source + ")");
      continue;
    }
    std::string note;
    if (p.family == PlatformFamily::linux) {  // what the binaries would justify instead
      JustifiedTag j = justified_platform_tag(f, s.policy());
      if (j.applies)
        note = j.tag ? "; the binaries justify " + *j.tag : "; no portable tag fits either (" + j.why + ")";
    }
    s.add("WC106", "platform tag '" + plat + "': " + p.problem + note);
  }
  bool any = false, specific = false;
  for (const auto& plat : w.platform_tags) (plat == "any" ? any : specific) = true;
  if (any && specific) s.add("WC105", "platform tags mix 'any' with specific platforms");
  abi_rules(w, s);
}

}  // namespace wc
