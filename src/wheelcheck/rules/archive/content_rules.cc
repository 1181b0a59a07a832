// WC105 (contents): what the wheel holds against what its tags promise, without binary analysis:
// native code in a pure wheel, and CPython extension-module suffixes (PEP 3149 / 3147) that name
// another interpreter version or ABI than the tags. WC211-WC218: check-wheel-contents' layout checks
// of what lands in site-packages.
#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include "binary/binary_facts.h"
#include "rules/loader/resolution.h"
#include "rules/rules.h"
#include "util/digest.h"
#include "util/parse.h"
#include "util/strings.h"
#include "util/view_map.h"
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

// ABI tag `none` promises no dependence on a Python ABI, but an extension module named for no
// interpreter (bare `tensorrt.so`, `foo.pyd`) is built for one: every interpreter the tags admit
// imports it, a free-threaded one too (cp314t accepts cp314-none-*, and imports a bare `.so`).
// Judged on evidence the file is a module: an ELF exporting PyInit_<name>, or a PE `.pyd`
// importing a pythonXY.dll. Versioned suffixes (.cpython-314-...) bind their interpreter: fine.
void unbound_modules_under_abi_none(const WheelFacts& f, FindingSink& s) {
  const auto& abis = f.filename.abi_tags;
  if (abis.empty() || !std::all_of(abis.begin(), abis.end(), [](const std::string& a) { return iequals(a, "none"); }))
    return;
  if (std::all_of(f.filename.platform_tags.begin(), f.filename.platform_tags.end(),
                  [](const std::string& p) { return iequals(p, "any"); }))
    return;  // a pure wheel with binaries is the pure_with_binaries finding
  for (const auto& b : f.binaries) {
    auto suffix = extension_suffix(b.path);
    if (!suffix || !suffix->python_extension || !suffix->abi.empty() || install_path(b.path).empty()) continue;
    std::string evidence;
    if (b.format == "elf" && exports_module_init(b) == std::optional<bool>(true)) {
      std::string_view base = last_component(b.path);
      evidence = "exports PyInit_" + std::string(base.substr(0, base.find('.')));
    } else if (b.format == "pe") {
      for (const auto& dll : b.needed)
        if (to_lower(dll).starts_with("python3") && to_lower(dll).ends_with(".dll")) evidence = "imports " + dll;
    }
    if (evidence.empty()) continue;
    s.add("WC105",
          "a CPython extension module (it " + evidence + ") named for no interpreter, in a wheel whose ABI tag is " +
              "'none': every interpreter the tags " + join(f.filename.python_tags, ".") +
              " admit would import it, a free-threaded build too; tag the wheel with the ABI it was built for " +
              "(cp314-cp314), abi3 when it uses only the limited API, or name the module with its interpreter's suffix",
          b.path);
  }
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
  unbound_modules_under_abi_none(f, s);
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

// A module Python runs: a module file other than a stub (.pyi is read by type checkers only).
bool is_runtime_module(std::string_view path) { return is_module_file(path) && !path.ends_with(".pyi"); }

// Code a directory may hold instead of Python modules: native libraries (auditwheel's pkg.libs/,
// NVIDIA's nvidia/cu13/lib/, pywin32_system32/) are loaded, not data.
bool is_code_file(std::string_view path) { return is_runtime_module(path) || is_native_library_name(path); }

// The module name a file binds, as check-wheel-contents reads extensions (its MODULE_EXT_RGX):
// `.py` and `.pyd`/`.so` come off, and one tag before `.pyd`/`.so` (`.cpython-312-x86_64-linux-gnu`,
// `.abi3`); `a.b.py` binds "a.b" (no name import can spell). nullopt: no module extension.
std::optional<std::string_view> module_basename(std::string_view file) {
  std::string_view rest;
  if (file.ends_with(".py")) return file.size() > 3 ? std::optional(file.substr(0, file.size() - 3)) : std::nullopt;
  if (file.ends_with(".pyd"))
    rest = file.substr(0, file.size() - 4);
  else if (file.ends_with(".so"))
    rest = file.substr(0, file.size() - 3);
  else
    return std::nullopt;
  if (rest.empty()) return std::nullopt;
  auto dot = rest.rfind('.');
  if (dot != std::string_view::npos && dot > 0 && dot + 1 < rest.size() &&
      std::all_of(rest.begin() + dot + 1, rest.end(), [](char c) { return is_alnum(c) || c == '_' || c == '-'; }))
    return rest.substr(0, dot);
  return rest;
}

// PEP 561's stub-only package directory: `{identifier}-stubs`.
bool is_stubs_dir(std::string_view name) {
  return name.ends_with("-stubs") && is_import_name(name.substr(0, name.size() - 6));
}

// Whether import reaches a module at site-packages path `p`: every directory and the name the file
// binds are import names. Stubs (.pyi) are not judged: type checkers, not import, read them, and
// check-wheel-contents' W004 leaves them alone too.
// `reached` is the directory path last found importable: the modules of one directory come one
// after another, and its names are checked once for them all.
bool reachable_module(std::string_view p, std::string_view& reached) {
  const auto slash = p.rfind('/');
  const std::string_view leaf = slash == std::string_view::npos ? p : p.substr(slash + 1);
  std::optional<std::string_view> stem = module_basename(leaf);
  if (!stem) stem = leaf.substr(0, leaf.find('.'));  // an extension module named otherwise
  if (!is_import_name(*stem)) return false;
  if (slash == std::string_view::npos) return true;
  const std::string_view path = p.substr(0, slash);
  if (!reached.empty() && path == reached) return true;
  for (std::string_view dirs = path;;) {  // each directory, in place
    const auto next = dirs.find('/');
    if (!is_import_name(dirs.substr(0, next))) return false;
    if (next == std::string_view::npos) break;
    dirs.remove_prefix(next + 1);
  }
  reached = path;
  return true;
}

// A library file: where it lands in site-packages (`p`) and the entry that puts it there.
struct LibraryFile {
  std::string_view path;  // a part of the entry's name (no copy per entry)
  const EntryFacts* entry;
};

// The files pip puts in site-packages (root, purelib/ and platlib/ of .data), the wheel's own
// dist-info aside. Other .data schemes install elsewhere; entries WC401 refuses are no layout.
std::vector<LibraryFile> library_files(const WheelFacts& f, uint64_t max_path_length) {
  std::vector<LibraryFile> out;
  for (const auto& e : f.entries) {
    if (e.kind != EntryKind::file || !unsafe_path_reason(e.name, max_path_length).empty()) continue;
    const std::string_view p = install_path_view(e.name);
    if (p.empty()) continue;
    std::string_view top = p.substr(0, p.find('/'));
    if ((!f.dist_info.empty() && top == f.dist_info) ||
        (p.find('/') != std::string_view::npos && top.ends_with(".data")))
      continue;
    out.push_back({p, &e});
  }
  return out;
}

// check-wheel-contents' layout checks, on the library part of the wheel (what lands in
// site-packages, dist-info aside): WC211 modules at paths import cannot reach (W004), WC212 more
// than one top-level package or module (W009), WC213 top-level directories with no Python module
// in them (W010). Each is one finding per wheel, naming examples.
void layout(const std::vector<LibraryFile>& lib, FindingSink& s) {
  std::vector<std::string> unreachable;
  std::set<std::string_view> toplevel, dirs_with_code, dirs;  // views of the entries' names
  std::string_view reached;                                   // reachable_module's last importable directory
  // Entries come directory by directory: the top of the one before is the same most of the time,
  // and then the sets already hold it (no tree walk for each of 100,000 entries).
  std::optional<std::string_view> last_dir, last_code_dir;
  for (const auto& [p, e] : lib) {
    auto slash = p.find('/');
    std::string_view top = p.substr(0, slash);
    if (top.ends_with(".dist-info") || top == "__pycache__") continue;
    const bool module = is_module_file(p);
    if (slash != std::string_view::npos) {
      if (last_dir != top) {
        dirs.insert(top);
        if (!top.ends_with(".libs")) toplevel.insert(top);  // auditwheel's and delvewheel's vendored libraries
        last_dir = top;
      }
      if (last_code_dir != top && is_code_file(p)) dirs_with_code.insert(top), last_code_dir = top;
    } else if (module) {
      toplevel.insert(top.substr(0, top.find('.')));
    }
    if (is_runtime_module(p) && !reachable_module(p, reached)) unreachable.emplace_back(p);
  }
  if (!unreachable.empty())
    s.add("WC211",
          std::to_string(unreachable.size()) + " Python module" + (unreachable.size() == 1 ? "" : "s") +
              " at paths import cannot reach (a directory or module name that is not an identifier, or a keyword): " +
              some_of(unreachable),
          unreachable.front());
  if (toplevel.size() > 1)
    s.add("WC212",
          std::to_string(toplevel.size()) + " top-level names in site-packages (" +
              some_of(std::vector<std::string>(toplevel.begin(), toplevel.end()), 6) +
              "): one distribution usually installs one package; stray directories clash with other projects'");
  // A directory of stubs alone is no package Python imports; PEP 561 names stub-only packages
  // `{pkg}-stubs` (check-wheel-contents' test_check_W010 gives `foo/bar.pyi` W010 too).
  std::vector<std::string> empty;
  for (const auto& d : dirs)
    if (!dirs_with_code.count(d) && !is_stubs_dir(d)) empty.push_back(std::string(d) + "/");
  if (!empty.empty())
    s.add("WC213",
          "top-level director" + std::string(empty.size() == 1 ? "y" : "ies") + " in site-packages with no Python " +
              "module or library: " + some_of(empty) + " (data shipped beside the packages rather than in one)",
          empty.front());
}

// check-wheel-contents' COMMON_NAMES: top-level names a build leaks from the source tree.
bool is_common_toplevel_name(std::string_view n) {
  static constexpr std::string_view names[] = {".eggs",   ".nox", ".tox", ".venv", "app",     "build",    "cli",
                                               "data",    "dist", "doc",  "docs",  "example", "examples", "lib",
                                               "scripts", "src",  "test", "tests", "venv"};
  return std::find(std::begin(names), std::end(names), n) != std::end(names);
}

// What lies at the top of site-packages besides packages: WC215 a file that is no module (W003;
// `.pth` files are meant to be there), WC216 a common name from the source tree (W005), WC217
// `__init__.py` (W006: the wheel was built from inside its package).
void toplevel_names(const std::vector<LibraryFile>& lib, FindingSink& s) {
  std::vector<std::string> non_modules, common;
  std::set<std::string_view> seen;
  for (const auto& [p, e] : lib) {
    auto slash = p.find('/');
    std::string_view top = p.substr(0, slash);
    if (slash == std::string_view::npos && !module_basename(p) && !(p.size() > 4 && p.ends_with(".pth")))
      non_modules.push_back(e->name);
    if (is_common_toplevel_name(top) && seen.insert(top).second)
      common.push_back(std::string(top) + (slash == std::string_view::npos ? "" : "/"));
    if (p == "__init__.py")
      s.add("WC217",
            "__init__.py at the top of site-packages: the wheel was built from inside its package, whose "
            "modules now install as top-level modules",
            e->name);
  }
  if (!non_modules.empty())
    s.add("WC215",
          std::to_string(non_modules.size()) + " file" + (non_modules.size() == 1 ? "" : "s") +
              " at the top of site-packages that no import reaches (not a module, not a .pth): " +
              some_of(non_modules) + " (data belongs inside the package)",
          non_modules.front());
  if (!common.empty())
    s.add("WC216",
          "common top-level name" + std::string(common.size() == 1 ? "" : "s") + " in site-packages: " +
              some_of(common) + " (a source-tree directory packaged by mistake; it clashes with other projects')",
          common.front());
}

// Files so common that two copies say nothing (check-wheel-contents' ALLOWED_DUPLICATES): empty,
// a bare line break, a coding line.
bool allowed_duplicate(uint64_t size, std::string_view sha256) {
  struct Allowed {
    std::vector<std::pair<uint64_t, std::string>> contents;  // six: compared in turn, nothing copied
    uint64_t longest = 0;                                    // nothing longer is looked up
  };
  static const Allowed allowed = [] {
    Allowed out;
    for (std::string_view text :
         {"", "\n", "\r\n", "# -*- coding: utf-8 -*-", "# -*- coding: utf-8 -*-\n", "# -*- coding: utf-8 -*-\n\r"}) {
      Digest d;
      d.update(text.data(), text.size());
      out.contents.emplace_back(text.size(), d.digest_b64());
      out.longest = std::max<uint64_t>(out.longest, text.size());
    }
    return out;
  }();
  return size <= allowed.longest && std::any_of(allowed.contents.begin(), allowed.contents.end(),
                                                [&](const auto& c) { return c.first == size && c.second == sha256; });
}

// Inside a .dist-info directory, the wheel's own or a vendored package's: PEP 639 asks for copies of
// license files there (pip ships each vendored LICENSE twice), and vendored metadata repeats itself.
bool in_dist_info(std::string_view name) { return name.find(".dist-info/") != std::string_view::npos; }

// WC214: one content under several names (check-wheel-contents W002), one finding per content;
// metadata directories aside.
void duplicates(const WheelFacts& f, FindingSink& s) {
  // Keyed by views of the entries' own digests (no copy each: a wheel has 100,000 entries), hashed
  // (the groups are sorted below, so the output does not depend on the table's order). A digest
  // names one content, so one size: only entries read whole (their digest and size both of the
  // bytes read) are compared.
  // Each content's first entry, and its group once a second one comes (most contents have one
  // entry: no list is made for them).
  struct Seen {
    const EntryFacts* first = nullptr;
    size_t group = 0;
  };
  constexpr size_t kNone = SIZE_MAX;
  ViewMap<Seen> by_content(f.entries.size());
  std::vector<std::vector<std::string>> groups;
  HashesAhead hashes(
      f.entries.size(), [&](size_t i) { return by_content.hash(f.entries[i].sha256); },
      [&](uint64_t h) { by_content.prefetch(h); });
  for (size_t i = 0; i < f.entries.size(); ++i) {
    const EntryFacts& e = f.entries[i];
    const uint64_t h = hashes.at(i);
    if (e.kind != EntryKind::file || e.sha256.empty() || !e.complete() || in_dist_info(e.name) ||
        allowed_duplicate(e.size, e.sha256))
      continue;
    auto [seen, fresh] = by_content.try_emplace_hashed(e.sha256, h, Seen{&e, kNone});
    if (fresh) continue;
    if (seen->group == kNone) {
      seen->group = groups.size();
      groups.push_back({seen->first->name});
    }
    groups[seen->group].push_back(e.name);
  }
  std::sort(groups.begin(), groups.end());
  // One finding per content, up to a bound: a wheel of 50,000 copied pairs gets a summary, not
  // 50,000 findings.
  constexpr size_t shown = 10;
  for (size_t i = 0; i < groups.size() && i < shown; ++i)
    s.add("WC214",
          std::to_string(groups[i].size()) + " files with the same content: " + some_of(groups[i]) +
              " (a file packaged twice, or a copy where one module could import the other)",
          groups[i].front());
  if (groups.size() > shown)
    s.add("WC214", "and " + std::to_string(groups.size() - shown) + " more sets of files with the same content");
}

// WC218: nothing for site-packages (check-wheel-contents W007), or nothing at all beside the
// dist-info (W008). A wheel with nothing but Requires-Dist is a metapackage, which exists to install
// its dependencies (NVIDIA's cuda-toolkit): no finding, where the peer reports both checks.
void empty_library(const WheelFacts& f, const std::vector<LibraryFile>& lib, FindingSink& s) {
  if (!lib.empty()) return;
  // Entries WC401 refused land nowhere; whether they meant site-packages is not for this rule.
  if (std::any_of(f.entries.begin(), f.entries.end(), [&](const EntryFacts& e) {
        return e.kind == EntryKind::file && !unsafe_path_reason(e.name, s.policy().limits.max_path_length).empty();
      }))
    return;
  bool other = std::any_of(f.entries.begin(), f.entries.end(), [&](const EntryFacts& e) {
    return e.kind == EntryKind::file && (f.dist_info.empty() || !e.name.starts_with(f.dist_info + "/"));
  });
  if (!other && f.metadata && !f.metadata->get_all("Requires-Dist").empty()) return;
  s.add("WC218", other ? "the wheel installs nothing into site-packages: all its files are .data scripts, headers "
                         "or data"
                       : "the wheel is empty: no file beside its dist-info");
}

}  // namespace

void content_rules(const WheelFacts& f, FindingSink& s) {
  pure_with_binaries(f, s);
  extension_suffixes(f, s);
  auto lib = library_files(f, s.policy().limits.max_path_length);
  layout(lib, s);
  toplevel_names(lib, s);
  duplicates(f, s);
  empty_library(f, lib, s);
}

}  // namespace wc
