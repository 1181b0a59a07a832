// WC105 (contents): what the wheel holds against what its tags promise, without binary analysis:
// native code in a pure wheel, and CPython extension-module suffixes (PEP 3149 / 3147) that name
// another interpreter version or ABI than the tags.
#include <algorithm>
#include <set>

#include "binary/binary_facts.h"
#include "rules/resolution.h"
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

std::string kind_of(const EntryFacts& e) {
  return e.magic.empty() ? "native library" : e.magic == "elf" ? "ELF" : e.magic == "macho" ? "Mach-O" : "PE";
}

// "a, b, c and 4 more" for a once-per-wheel note.
std::string some_of(const std::vector<std::string>& names, size_t show = 4) {
  std::vector<std::string> head;
  for (size_t i = 0; i < names.size() && i < show; ++i) {
    // The end of a long path tells one file from the next; keep it.
    const std::string& n = names[i];
    head.push_back(n.size() <= 80 ? clip_for_display(n) : "…" + clip_for_display(n.substr(n.size() - 79), 80));
  }
  return join(head, ", ") + (names.size() > show ? " and " + std::to_string(names.size() - show) + " more" : "");
}

// Native files where the tags promise none. In a platform-'any' wheel an extension module Python
// would import is a real defect (installers put it on every platform); any other native file is
// data Python never imports (pip's Windows launcher templates, delocate's Mach-O test fixtures):
// one note per wheel. Binaries in a platform-tagged wheel with Root-Is-Purelib: true install to
// purelib instead of platlib (NVIDIA's CUDA wheels ship that way and work): one note per wheel.
void pure_with_binaries(const WheelFacts& f, FindingSink& s) {
  bool any_platform = f.filename.valid && f.filename.platform_tags.size() == 1 && f.filename.platform_tags[0] == "any";
  bool pure = is_pure(f);
  if (!any_platform && !pure) return;
  std::vector<std::string> data;
  for (const auto& e : f.entries) {
    // GPU code (fatbins, cubins: ELF for the GPU) runs on no host CPU: any host platform fits it.
    if (e.kind != EntryKind::file || e.magic == "fatbin" || e.name.ends_with(".cubin") ||
        (e.magic.empty() && !is_native_library_name(e.name)))
      continue;
    if (any_platform && is_extension_module(e.name) &&
        (e.magic.empty() || e.magic == "elf" || e.magic == "macho" || e.magic == "pe"))
      s.add("WC105",
            kind_of(e) + " extension module in a platform 'any' wheel: every platform would install and import it",
            e.name);
    else
      data.push_back(e.name);
  }
  if (data.empty()) return;
  std::string count = std::to_string(data.size()) + " native file" + (data.size() == 1 ? "" : "s");
  if (any_platform)
    s.add("WC105",
          count +
              " shipped as data in a platform 'any' wheel (Python does not import them; no architecture or library "
              "checks apply): " +
              some_of(data),
          "", std::nullopt, Severity::warning);
  else
    s.add("WC105", count + " in a wheel with Root-Is-Purelib: true (binaries belong in platlib): " + some_of(data), "",
          std::nullopt, Severity::warning);
}

void extension_suffixes(const WheelFacts& f, FindingSink& s) {
  if (!f.filename.valid) return;
  bool abi3 = false;
  std::vector<std::string> cp_abis;
  for (const auto& a : f.filename.abi_tags) {
    std::string l = to_lower(a);
    if (l == "abi3")
      abi3 = true;
    else if (l.starts_with("cp"))
      cp_abis.push_back(l);
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
      // A library named like a module but exporting no PyInit_ is no module Python imports (a
      // torch op library loaded by path, as torchao's _C_mxfp8): its name binds no interpreter.
      auto bin =
          std::find_if(f.binaries.begin(), f.binaries.end(), [&](const BinaryFacts& b) { return b.path == e.name; });
      if (bin != f.binaries.end() && exports_module_init(*bin) == std::optional<bool>(false)) continue;
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

// A Python module file: source, stub, or an extension module named for an interpreter
// (name.cpython-312-x86_64-linux-gnu.so, name.abi3.so, name.cp312-win_amd64.pyd, name.pyd). A bare
// libfoo-1.2.so is a library loaded by path, not imported by name.
bool is_module_file(std::string_view path) {
  if (path.ends_with(".py") || path.ends_with(".pyi") || path.ends_with(".pyd")) return true;
  std::string_view file = last_component(path);
  return (file.find(".cpython-") != std::string_view::npos || file.find(".abi3.") != std::string_view::npos ||
          file.find(".pypy") != std::string_view::npos) &&
         is_extension_module(std::string(path));
}

// Code a directory may hold instead of Python modules: native libraries (auditwheel's pkg.libs/,
// NVIDIA's nvidia/cu13/lib/, pywin32_system32/) are loaded, not data.
bool is_code_file(std::string_view path) { return is_module_file(path) || is_native_library_name(path); }

// check-wheel-contents' layout checks, on the library part of the wheel (what lands in
// site-packages, dist-info aside): WC211 modules at paths import cannot reach (W004), WC212 more
// than one top-level package or module (W009), WC213 top-level directories with no Python module
// in them (W010). Each is one finding per wheel, naming examples.
void layout(const WheelFacts& f, FindingSink& s) {
  std::vector<std::string> unreachable;
  std::set<std::string> toplevel, dirs_with_code, dirs;
  for (const auto& e : f.entries) {
    if (e.kind != EntryKind::file) continue;
    std::string p = install_path(e.name);
    if (p.empty()) continue;
    auto slash = p.find('/');
    std::string top = p.substr(0, slash);
    if (top.ends_with(".dist-info") || top.ends_with(".data") || top == "__pycache__") continue;
    const bool module = is_module_file(p);
    if (slash == std::string::npos) {
      if (module) toplevel.insert(top.substr(0, top.find('.')));
      continue;
    }
    dirs.insert(top);
    if (!top.ends_with(".libs")) toplevel.insert(top);  // auditwheel's and delvewheel's vendored libraries
    if (is_code_file(p)) dirs_with_code.insert(top);
    if (!module) continue;
    // Every directory a package, and the module's own name, must be identifiers; `pkg-stubs`
    // (PEP 561) is read by type checkers under that name.
    auto parts = split(p, '/');
    std::string_view stem = parts.back().substr(0, parts.back().find('.'));
    bool ok = is_identifier(stem);
    for (size_t i = 0; ok && i + 1 < parts.size(); ++i)
      ok = is_identifier(parts[i]) ||
           (i == 0 && parts[i].ends_with("-stubs") && is_identifier(parts[i].substr(0, parts[i].size() - 6)));
    if (!ok) unreachable.push_back(p);
  }
  if (!unreachable.empty())
    s.add("WC211",
          std::to_string(unreachable.size()) + " Python module" + (unreachable.size() == 1 ? "" : "s") +
              " at paths import cannot reach (a directory or module name that is not an identifier): " +
              some_of(unreachable),
          unreachable.front());
  if (toplevel.size() > 1)
    s.add("WC212",
          std::to_string(toplevel.size()) + " top-level names in site-packages (" +
              some_of(std::vector<std::string>(toplevel.begin(), toplevel.end()), 6) +
              "): one distribution usually installs one package; stray directories clash with other projects'");
  std::vector<std::string> empty;
  for (const auto& d : dirs)
    if (!dirs_with_code.count(d) && !d.ends_with("-stubs")) empty.push_back(d + "/");
  if (!empty.empty())
    s.add("WC213",
          "top-level director" + std::string(empty.size() == 1 ? "y" : "ies") + " in site-packages with no Python " +
              "module or library: " + some_of(empty) + " (data shipped beside the packages rather than in one)",
          empty.front());
}

}  // namespace

void content_rules(const WheelFacts& f, FindingSink& s) {
  pure_with_binaries(f, s);
  extension_suffixes(f, s);
  layout(f, s);
}

}  // namespace wc
