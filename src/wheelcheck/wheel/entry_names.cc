#include "wheel/entry_names.h"

#include <algorithm>
#include <iterator>

#include "util/parse.h"
#include "util/strings.h"

namespace wc {
namespace {

// "cpython-312[t][d][m][-platform]" (POSIX, after the last dot) or "cp312[t]-platform" (Windows).
std::optional<std::string> cpython_tag(std::string_view seg, bool windows) {
  if (!consume(seg, windows ? "cp" : "cpython-", true)) return std::nullopt;
  size_t n = digit_prefix(seg);
  if (n < 2) return std::nullopt;
  std::string abi = "cp" + std::string(seg.substr(0, n));
  seg.remove_prefix(n);
  if (consume(seg, "t", windows)) abi += "t";
  if (!windows) {
    consume(seg, "d");
    consume(seg, "m");
  }
  if (seg.empty()) return windows ? std::nullopt : std::optional(abi);
  if (seg.front() != '-' || seg.size() < 2 || seg.find('/') != std::string_view::npos) return std::nullopt;
  return abi;
}

}  // namespace

bool is_python_keyword(std::string_view name) {
  // By length, so a name is compared with at most nine keywords (every module name of a wheel is
  // asked this, 100,000 of them for a wheel of small files).
  static constexpr std::string_view k2[] = {"as", "if", "in", "is", "or"};
  static constexpr std::string_view k3[] = {"and", "def", "del", "for", "not", "try"};
  static constexpr std::string_view k4[] = {"None", "True", "elif", "else", "from", "pass", "with"};
  static constexpr std::string_view k5[] = {"False", "async", "await", "break", "class", "raise", "while", "yield"};
  static constexpr std::string_view k6[] = {"assert", "except", "global", "import", "lambda", "return"};
  static constexpr std::string_view k7[] = {"finally"};
  static constexpr std::string_view k8[] = {"continue", "nonlocal"};
  auto in = [&](const auto& words) {
    for (std::string_view w : words)
      if (w[0] == name[0] && w == name) return true;  // the first byte before a call to memcmp
    return false;
  };
  switch (name.size()) {
    case 2: return in(k2);
    case 3: return in(k3);
    case 4: return in(k4);
    case 5: return in(k5);
    case 6: return in(k6);
    case 7: return in(k7);
    case 8: return in(k8);
    default: return false;
  }
}

bool is_import_name(std::string_view name) { return is_identifier(name) && !is_python_keyword(name); }

std::string_view last_component(std::string_view name) {
  auto slash = name.rfind('/');
  return slash == std::string_view::npos ? name : name.substr(slash + 1);
}

std::string_view parent_dir(std::string_view name) {
  auto slash = name.rfind('/');
  return slash == std::string_view::npos ? std::string_view() : name.substr(0, slash);
}

std::string_view install_path_view(std::string_view entry) {
  auto slash = entry.find('/');
  if (slash == std::string_view::npos || !entry.substr(0, slash).ends_with(".data")) return entry;
  std::string_view rest = entry.substr(slash + 1);
  if (consume(rest, "purelib/") || consume(rest, "platlib/")) return rest;
  return "";
}

std::string install_path(std::string_view entry) { return std::string(install_path_view(entry)); }

std::optional<InstallTargetView> install_target_view(std::string_view entry) {
  auto slash = entry.find('/');
  if (slash == std::string_view::npos || !entry.substr(0, slash).ends_with(".data"))
    return InstallTargetView{"", entry};
  std::string_view rest = entry.substr(slash + 1);
  auto sub = rest.find('/');
  if (sub == std::string_view::npos) return rest.empty() ? std::optional(InstallTargetView{"", ""}) : std::nullopt;
  std::string_view scheme = rest.substr(0, sub);
  for (std::string_view known : {"purelib", "platlib", "headers", "scripts", "data"})
    if (scheme == known) return InstallTargetView{scheme, rest.substr(sub + 1)};
  return std::nullopt;
}

std::optional<InstallTarget> install_target(std::string_view entry) {
  auto t = install_target_view(entry);
  if (!t) return std::nullopt;
  return InstallTarget{std::string(t->scheme), std::string(t->path)};
}

bool is_native_library_name(std::string_view name) {
  // Every such name ends in d (.pyd), l (.dll), b (.dylib), o (.so) or a version digit, in
  // either case: most entries (.py files) are answered by their last byte alone.
  if (name.empty()) return false;
  switch (ascii_lower(name.back())) {
    case 'd':
    case 'l':
    case 'b':
    case 'o': break;
    default:
      if (!is_digit(name.back())) return false;
  }
  name = last_component(name);
  if (ends_with_ci(name, ".pyd") || ends_with_ci(name, ".dylib") || ends_with_ci(name, ".dll")) return true;
  for (;;) {  // strip ".1.2.3" version suffixes
    auto dot = name.rfind('.');
    if (dot == std::string_view::npos || !all_digits(name.substr(dot + 1))) break;
    name = name.substr(0, dot);
  }
  return ends_with_ci(name, ".so");
}

bool is_lettered_shared_library_name(std::string_view name) {
  // Such a name ends in a version digit and a letter ("libfoo.so.1a"): most entries are answered
  // by their last two bytes alone (every entry of a wheel is asked).
  if (name.size() < 6 || name.back() < 'a' || name.back() > 'z' || !is_digit(name[name.size() - 2])) return false;
  name = last_component(name);
  auto so = name.find(".so.");
  if (so == std::string_view::npos || so == 0) return false;
  std::string_view v = name.substr(so + 4);
  if (v.size() < 2 || v.back() < 'a' || v.back() > 'z') return false;
  v.remove_suffix(1);
  for (auto part : split(v, '.'))
    if (!all_digits(part)) return false;
  return true;
}

std::optional<ExtensionSuffix> extension_suffix(std::string_view name) {
  name = last_component(name);
  bool so = ends_with_ci(name, ".so"), pyd = ends_with_ci(name, ".pyd");
  if (!so && !pyd) return std::nullopt;
  std::string_view stem = name.substr(0, name.size() - (so ? 3 : 4));
  auto dot = stem.rfind('.');
  if (dot == std::string_view::npos || dot == 0) return ExtensionSuffix{"", true};  // foo.so / foo.pyd
  std::string_view seg = stem.substr(dot + 1);
  if (so && seg == "abi3") return ExtensionSuffix{"abi3", true};
  if (so && seg == "abi3t") return ExtensionSuffix{"abi3t", true};  // PEP 803: importlib's suffix on 3.15t
  if (auto abi = cpython_tag(seg, pyd)) return ExtensionSuffix{*abi, true};
  return ExtensionSuffix{"", true};
}

}  // namespace wc
