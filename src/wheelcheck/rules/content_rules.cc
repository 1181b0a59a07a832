// WC105 (contents): what the wheel holds against what its tags promise, without binary analysis:
// native code in a pure wheel, and CPython extension-module suffixes (PEP 3149 / 3147) that name
// another interpreter version or ABI than the tags.
#include "rules/rules.h"
#include "util/parse.h"
#include "util/strings.h"
#include "wheel/entry_names.h"

namespace wc {
namespace {

bool is_pure(const WheelFacts& f) {
  if (f.wheel_file)
    if (auto p = f.wheel_file->get("Root-Is-Purelib")) return to_lower(*p) == "true";
  return false;
}

void pure_with_binaries(const WheelFacts& f, FindingSink& s) {
  bool any_platform = f.filename.valid && f.filename.platform_tags.size() == 1 && f.filename.platform_tags[0] == "any";
  bool pure = is_pure(f);
  if (!any_platform && !pure) return;
  int reported = 0;
  for (const auto& e : f.entries) {
    if (e.kind != EntryKind::file || e.magic == "fatbin" || (e.magic.empty() && !is_native_library_name(e.name))) continue;
    if (++reported > 20) break;  // the point is made; do not flood the report
    std::string what = e.magic.empty() ? "native library" : e.magic == "elf" ? "ELF binary" : e.magic == "macho" ? "Mach-O binary" : "PE binary";
    if (any_platform) {
      s.add("WC105", what + " in a platform 'any' wheel", e.name);
    } else {
      // The tag is platform-specific, so installers pick the right wheel; only the install scheme
      // is wrong (purelib, e.g. lib/ instead of lib64/ on some distributions). NVIDIA's CUDA wheels
      // ship this way, and they work: a warning, not an error.
      s.add("WC105", what + " in a wheel with Root-Is-Purelib: true (binaries belong in platlib)", e.name, std::nullopt,
            Severity::warning);
    }
  }
}

void extension_suffixes(const WheelFacts& f, FindingSink& s) {
  if (!f.filename.valid) return;
  bool abi3 = false;
  std::vector<std::string> cp_abis;
  for (const auto& a : f.filename.abi_tags) {
    std::string l = to_lower(a);
    if (l == "abi3") abi3 = true;
    else if (l.starts_with("cp")) cp_abis.push_back(l);
  }
  for (const auto& e : f.entries) {
    // foo.cpython-312-x86_64-linux-gnu.so, foo.cpython-313t-darwin.so, foo.cp312-win_amd64.pyd
    auto suffix = extension_suffix(e.name);
    if (!suffix || !suffix->abi.starts_with("cp")) continue;
    std::string abi = to_lower(suffix->abi);
    if (digit_prefix(std::string_view(abi).substr(2)) > 4) {
      s.add("WC105", "extension module suffix '" + clip_for_display(abi, 40) + "' names no CPython version", e.name);
      continue;
    }
    if (abi3 && cp_abis.empty()) {
      s.add("WC105", "abi3 wheel contains an extension built for one CPython version (" + abi + ")", e.name);
      continue;
    }
    bool matches = false;
    for (const auto& a : cp_abis) {
      std::string base = a;
      while (!base.empty() && (base.back() == 'm' || base.back() == 'd' || base.back() == 'u')) base.pop_back();
      matches |= base == abi;
    }
    if (!cp_abis.empty() && !matches)
      s.add("WC105", "extension module is for " + abi + ", the wheel's ABI tags are " + join(cp_abis, ", "), e.name);
  }
}

}  // namespace

void content_rules(const WheelFacts& f, FindingSink& s) {
  pure_with_binaries(f, s);
  extension_suffixes(f, s);
}

}  // namespace wc
