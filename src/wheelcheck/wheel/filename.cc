#include "wheel/filename.h"

#include <algorithm>
#include <set>

#include "util/parse.h"
#include "util/strings.h"

namespace wc {
namespace {

bool is_word_char(char c) { return is_alnum(c) || c == '_' || c == '.'; }

std::vector<std::string> split_tag_set(std::string_view s) {
  std::vector<std::string> out;
  for (auto p : split(s, '.')) out.emplace_back(p);
  return out;
}

// Checks the tag triple of a name for problems packaging tolerates; they become WC107 findings.
void note_style(WheelFilename& w) {
  if (w.name != escape_name(w.name))
    w.style_problems.push_back("distribution name '" + w.name + "' is not in escaped, lower-case form '" +
                               escape_name(w.name) + "'");
  if (w.version && w.version_text != w.version->normalized())
    w.style_problems.push_back("version '" + w.version_text + "' is not in normalised form '" +
                               w.version->normalized() + "'");
  for (const auto& group : {w.python_tags, w.abi_tags, w.platform_tags}) {
    for (const auto& t : group)
      if (t != to_lower(t)) w.style_problems.push_back("tag '" + t + "' is not lower case");
  }
}

// A compressed tag set with an empty member ('py3.') or an interpreter that is not an identifier
// ('2.7.6', 'py+3', 'py 3') names a tag no interpreter has: packaging (26.3, tags.parse_tag) and
// pypa/wheel refuse the name. "" when the tags are well formed.
std::string tag_set_problem(const std::vector<std::string_view>& sets) {
  static const char* const kWhat[] = {"python", "abi", "platform"};
  for (size_t k = 0; k < sets.size(); ++k)
    for (auto member : split(sets[k], '.')) {
      if (member.empty())
        return std::string(kWhat[k]) + " tag set '" + escape_for_display(sets[k]) +
               "' has an empty member (packaging and wheel refuse the name)";
      if (k == 0 && !is_identifier(member))
        return "interpreter tag '" + escape_for_display(member) + "' in '" + escape_for_display(sets[k]) +
               "' is not an identifier, so no interpreter matches it (packaging and wheel refuse the name)";
    }
  return "";
}

}  // namespace

std::string canonicalize_name(std::string_view name) {
  std::string out;
  bool in_run = false;
  for (char c : name) {
    if (c == '-' || c == '_' || c == '.') {
      if (!in_run) out.push_back('-');
      in_run = true;
    } else {
      out.push_back(ascii_lower(c));
      in_run = false;
    }
  }
  return out;
}

std::string escape_name(std::string_view name) {
  std::string c = canonicalize_name(name);
  std::replace(c.begin(), c.end(), '-', '_');
  return c;
}

// ^([A-Z0-9]|[A-Z0-9][A-Z0-9._-]*[A-Z0-9])$ (case-insensitive), as a scan.
bool is_valid_project_name(std::string_view name) {
  if (name.empty() || !is_alnum(name.front()) || !is_alnum(name.back())) return false;
  for (char c : name)
    if (!is_alnum(c) && c != '.' && c != '_' && c != '-') return false;
  return true;
}

// Follows packaging.utils.parse_wheel_filename (the reference every installer shares), made
// stricter only where PEP 427 is explicit; the differential test documents each difference.
WheelFilename parse_wheel_filename(std::string_view filename) {
  WheelFilename w;
  w.raw = std::string(filename);
  auto fail = [&](std::string why) {
    w.valid = false;
    w.error = std::move(why);
    return w;
  };
  if (!filename.ends_with(".whl")) return fail("file name does not end in .whl");
  std::string_view stem = filename.substr(0, filename.size() - 4);
  size_t dashes = std::count(stem.begin(), stem.end(), '-');
  if (dashes < 4 || dashes > 6)
    return fail(
        "expected 5 to 7 dash-separated parts {name}-{version}(-{build})?-{python}-{abi}-{platform}(-{variant "
        "label})?, found " +
        std::to_string(dashes + 1));
  auto parts = split(stem, '-');
  w.name = std::string(parts[0]);
  if (w.name.empty()) return fail("empty distribution name");
  if (w.name.find("__") != std::string::npos || !std::all_of(w.name.begin(), w.name.end(), is_word_char))
    return fail("distribution name '" + escape_for_display(w.name) +
                "' is not escaped (only letters, digits, '_' and '.', no '__')");
  w.canonical_name = canonicalize_name(w.name);
  w.version_text = std::string(parts[1]);
  if (w.version_text.empty() || std::any_of(w.version_text.begin(), w.version_text.end(), is_space))
    return fail("version '" + escape_for_display(w.version_text) + "' is not a PEP 440 version");
  w.version = parse_version(w.version_text);
  if (!w.version) return fail("version '" + escape_for_display(w.version_text) + "' is not a PEP 440 version");
  // PEP 825: an optional last part, the variant label. Seven parts: build tag and label; six: a
  // label when the third part starts with a letter (a python tag), else a build tag.
  bool third_is_tag = !parts[2].empty() && is_alpha(parts[2][0]);
  bool has_label = dashes == 6 || (dashes == 5 && third_is_tag);
  bool has_build = dashes == 6 || (dashes == 5 && !third_is_tag);
  if (has_label) {
    std::string_view label = parts.back();
    if (label.empty() || !std::all_of(label.begin(), label.end(), [](char c) {
          return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || c == '_' || c == '.';
        }))
      return fail("variant label '" + escape_for_display(label) + "' does not match ^[0-9a-z_.]+$ (PEP 825)");
    w.variant_label = std::string(label);
  }
  size_t ti = 2;
  if (has_build) {
    std::string_view b = parts[2];
    size_t nd = 0;
    while (nd < b.size() && b[nd] >= '0' && b[nd] <= '9') ++nd;
    if (nd == 0) return fail("build tag '" + escape_for_display(b) + "' does not start with a digit");
    std::string num(b.substr(0, nd));
    size_t nz = num.find_first_not_of('0');
    w.build = BuildTag{nz == std::string::npos ? "0" : num.substr(nz), std::string(b.substr(nd))};
    ti = 3;
  }
  for (size_t k = 0; k < 3; ++k) {
    if (parts[ti + k].empty()) return fail("empty tag");
  }
  if (has_label && is_digit(parts[ti][0]))
    return fail("python tag '" + escape_for_display(parts[ti]) +
                "' starts with a digit; with a variant label the python tag must not (PEP 825)");
  if (std::string bad = tag_set_problem({parts[ti], parts[ti + 1], parts[ti + 2]}); !bad.empty()) return fail(bad);
  w.python_tags = split_tag_set(parts[ti]);
  w.abi_tags = split_tag_set(parts[ti + 1]);
  w.platform_tags = split_tag_set(parts[ti + 2]);
  std::set<std::string> seen;
  for (const auto& py : w.python_tags)
    for (const auto& abi : w.abi_tags)
      for (const auto& plat : w.platform_tags) {
        Tag t{py, abi, plat};
        if (seen.insert(t.str()).second) w.tags.push_back(t);
      }
  w.valid = true;
  note_style(w);
  return w;
}

const char* family_name(PlatformFamily f) {
  switch (f) {
    case PlatformFamily::any: return "any";
    case PlatformFamily::manylinux: return "manylinux";
    case PlatformFamily::musllinux: return "musllinux";
    case PlatformFamily::linux: return "linux";
    case PlatformFamily::macos: return "macos";
    case PlatformFamily::windows: return "windows";
    case PlatformFamily::ios: return "ios";
    case PlatformFamily::android: return "android";
    case PlatformFamily::other: return "other";
  }
  return "other";
}

namespace {

const std::set<std::string>& linux_arches() {
  static const std::set<std::string> a = {"x86_64",  "i686",  "aarch64", "armv7l",     "ppc64",
                                          "ppc64le", "s390x", "riscv64", "loongarch64"};
  return a;
}

const std::set<std::string>& macos_arches() {
  static const std::set<std::string> a = {"x86_64", "arm64", "universal2", "intel", "universal", "i386",
                                          "ppc",    "ppc64", "fat",        "fat3",  "fat32",     "fat64"};
  return a;
}

// "X_Y_arch" after a prefix; arch may itself contain '_' (x86_64).
bool split_version_arch(std::string_view rest, int& major, int& minor, std::string& arch) {
  auto p1 = rest.find('_');
  if (p1 == std::string_view::npos) return false;
  auto p2 = rest.find('_', p1 + 1);
  if (p2 == std::string_view::npos) return false;
  auto a = parse_small(rest.substr(0, p1), 9999), b = parse_small(rest.substr(p1 + 1, p2 - p1 - 1), 9999);
  if (!a || !b) return false;
  major = *a;
  minor = *b;
  arch = std::string(rest.substr(p2 + 1));
  return !arch.empty();
}

void classify_linux_family(std::string_view tag, PlatformTag& p) {
  struct Alias {
    std::string_view prefix;
    int major, minor;
  };
  static const Alias aliases[] = {{"manylinux1_", 2, 5}, {"manylinux2010_", 2, 12}, {"manylinux2014_", 2, 17}};
  for (const auto& al : aliases) {
    if (tag.starts_with(al.prefix)) {
      p.family = PlatformFamily::manylinux;
      p.major = al.major, p.minor = al.minor;
      p.arch = std::string(tag.substr(al.prefix.size()));
      bool ok = al.minor == 17 ? linux_arches().count(p.arch) && p.arch != "riscv64" && p.arch != "loongarch64"
                               : (p.arch == "x86_64" || p.arch == "i686");
      if (!ok)
        p.problem = "architecture '" + p.arch + "' is not defined for " +
                    std::string(al.prefix.substr(0, al.prefix.size() - 1));
      p.pypi_accepted = ok;
      return;
    }
  }
  bool musl = tag.starts_with("musllinux_");
  p.family = musl ? PlatformFamily::musllinux : PlatformFamily::manylinux;
  if (!musl && !tag.starts_with("manylinux_")) {
    p.problem = "unknown manylinux tag (expected manylinux_X_Y_ARCH or manylinux1/2010/2014_ARCH)";
    return;
  }
  std::string_view rest = tag.substr(10);  // after "manylinux_" / "musllinux_"
  if (!split_version_arch(rest, p.major, p.minor, p.arch)) {
    p.problem = "expected " + std::string(musl ? "musllinux" : "manylinux") + "_X_Y_ARCH";
    return;
  }
  if (!linux_arches().count(p.arch)) {
    p.problem = "architecture '" + p.arch + "' is not a Linux architecture PyPI accepts";
    return;
  }
  // PEP 600 sets no limit on glibc's major version (manylinux_3_0_x86_64 is a valid tag, and PyPI
  // accepts it); glibc 1 and musl other than 1 never existed.
  if (musl ? p.major != 1 : p.major < 2) {
    p.problem = std::string(musl ? "musl major version must be 1" : "glibc major version must be 2 or later");
    return;
  }
  p.pypi_accepted = true;
}

void classify_macos(std::string_view tag, PlatformTag& p) {
  p.family = PlatformFamily::macos;
  if (!split_version_arch(tag.substr(7), p.major, p.minor, p.arch)) {
    p.problem = "expected macosx_MAJOR_MINOR_ARCH";
    return;
  }
  if (!macos_arches().count(p.arch)) {
    p.problem = "architecture '" + p.arch + "' is not a macOS architecture";
    return;
  }
  // PyPI: 10_x for any x; 11 and later with minor 0 only (macOS 11+ versions tags by major).
  bool ok = (p.major == 10) || ((p.major >= 11 && p.major <= 15) || p.major == 26);
  if (!ok)
    p.problem = "macOS major version " + std::to_string(p.major) + " is not one PyPI accepts";
  else if (p.major >= 11 && p.minor != 0)
    p.problem = "macOS 11 and later are tagged MAJOR_0";
  p.pypi_accepted = p.problem.empty();
}

// "17_0_arm64_iphoneos" (after "ios_").
bool parse_ios(std::string_view rest, PlatformTag& p) {
  uint64_t major = 0, minor = 0;
  if (!consume_number(rest, 9999, major) || !consume(rest, "_") || !consume_number(rest, 9999, minor) ||
      !consume(rest, "_"))
    return false;
  for (std::string_view arch : {"arm64", "x86_64"}) {
    std::string_view r = rest;
    if (!consume(r, arch) || !consume(r, "_")) continue;
    if (r != "iphoneos" && r != "iphonesimulator") return false;
    p.major = static_cast<int>(major), p.minor = static_cast<int>(minor), p.arch = std::string(arch);
    p.pypi_accepted = true;
    return true;
  }
  return false;
}

// "24_arm64_v8a" (after "android_").
bool parse_android(std::string_view rest, PlatformTag& p) {
  uint64_t api = 0;
  if (!consume_number(rest, 9999, api) || !consume(rest, "_")) return false;
  if (rest != "arm64_v8a" && rest != "armeabi_v7a" && rest != "x86_64" && rest != "x86") return false;
  p.major = static_cast<int>(api), p.arch = std::string(rest);
  p.pypi_accepted = true;
  return true;
}

}  // namespace

PlatformTag classify_platform(std::string_view tag) {
  PlatformTag p;
  if (tag == "any") {
    p.family = PlatformFamily::any;
    p.pypi_accepted = true;
  } else if (tag.starts_with("manylinux") || tag.starts_with("musllinux_")) {
    classify_linux_family(tag, p);
  } else if (tag.starts_with("linux_")) {
    p.family = PlatformFamily::linux;
    p.arch = std::string(tag.substr(6));
    // PyPI's static list has allowed linux_armv6l and linux_armv7l since 2017 (Raspberry Pi
    // wheels; warehouse forklift/legacy.py _allowed_platforms); every other linux_* it rejects.
    if (p.arch == "armv6l" || p.arch == "armv7l")
      p.pypi_accepted = true;
    else
      p.problem =
          "'linux_*' wheels are not portable; PyPI rejects them (use a manylinux or musllinux tag; PyPI "
          "allows only linux_armv6l and linux_armv7l)";
  } else if (tag.starts_with("macosx_")) {
    classify_macos(tag, p);
  } else if (tag == "win32" || tag == "win_amd64" || tag == "win_arm64" || tag == "win_ia64") {
    p.family = PlatformFamily::windows;
    p.arch = tag == "win32" ? "x86" : std::string(tag.substr(4));
    p.pypi_accepted = true;
  } else if (tag.starts_with("ios_")) {
    // PEP 730: ios_{major}_{minor}_{arch}_{iphoneos|iphonesimulator}
    p.family = PlatformFamily::ios;
    if (!parse_ios(tag.substr(4), p)) p.problem = "expected ios_MAJOR_MINOR_ARCH_SDK (PEP 730)";
  } else if (tag.starts_with("android_")) {
    // PEP 738: android_{api}_{abi}
    p.family = PlatformFamily::android;
    if (!parse_android(tag.substr(8), p)) p.problem = "expected android_APILEVEL_ABI (PEP 738)";
  } else if (tag.starts_with("pyemscripten_")) {
    // PEP 783: pyemscripten_{year}_{patch}_wasm32 (Pyodide's ABI), accepted by PyPI.
    std::string_view rest = tag.substr(13);
    uint64_t year = 0, patch = 0;
    if (consume_number(rest, 9999, year) && consume(rest, "_") && consume_number(rest, 9999, patch) &&
        rest == "_wasm32" && year >= 2024) {
      p.arch = "wasm32", p.major = static_cast<int>(year), p.minor = static_cast<int>(patch);
      p.pypi_accepted = true;
    } else {
      p.problem = "expected pyemscripten_YEAR_PATCH_wasm32 (PEP 783)";
    }
  } else {
    p.problem = "unknown platform tag";
  }
  return p;
}

}  // namespace wc
