// WC514, WC516 and WC517: will the wheel's ELF binaries link, symbol by symbol, in the process they load
// into, and does that process end up with two copies of one runtime.
//  - WC514 binds every non-weak undefined dynamic symbol as ld.so does: in the binary's lookup
//    scope (the libraries an import_loaded project opened RTLD_GLOBAL, then the binary's DT_NEEDED
//    closure, breadth first, each need met as WC503 meets it, including a library a dependency's
//    import already put into the process by soname), with symbol versions: a versioned reference
//    binds a definition carrying that version name (hidden sym@VER ones too) or a base one; an
//    unversioned one binds any non-hidden definition. Version needs are checked as the loader
//    checks them before any symbol ("version `V' not found"). What the run has no file for is
//    taken on trust where the loader could find it: a system library that versions every export
//    (linux.versioned_libraries) meets the references versioned to it (WC502 judges how new they
//    are), another system library (libX11, libcuda) or a declared dependency's library whose wheel
//    is not in the run may define anything, and the interpreter's process holds the Py*/_Py* C API
//    and the C library's names (linux.interpreter_symbols: sqrt or dlopen called without linking
//    libm or libdl bind there, unversioned).
//  - Mach-O binds (macho_binding.h) and PE imports (pe_imports) are judged the same way, each as its
//    loader binds.
//  - WC516: two files of one runtime (libgomp, libgfortran, ...) that load into one process,
//    known by the version nodes they define (GOMP_*) or their soname stem (libgomp-<hash>.so.1).
#include <algorithm>
#include <iterator>
#include <map>
#include <set>
#include <unordered_set>

#include "binary/binary_facts.h"
#include "binary/mangled.h"
#include "rules/loader/macho_binding.h"
#include "rules/loader/resolution.h"
#include "rules/loader/symbol_binding.h"
#include "rules/rules.h"
#include "util/parse.h"
#include "util/strings.h"
#include "wheel/entry_names.h"

namespace wc {
namespace {

std::string wheel_label(const WheelFacts* w) {
  if (!w || !w->filename.valid) return "";
  return w->filename.name + " " + w->filename.version_text;
}

std::string shown_symbol(std::string_view name) {
  std::string d = demangle_for_display(name);
  std::string s = clip_for_display(std::string(name), 160);
  if (!d.empty()) s += " (" + clip_for_display(d, 160) + ")";
  return s;
}

// One library of a binary's lookup scope.
struct Lib {
  const WheelFacts* wheel = nullptr;
  const BinaryFacts* binary = nullptr;  // null: no file in the run (a system library, an absent dependency's)
  std::string soname;
  bool absorbs = false;  // its symbols are unknown and it may define unversioned ones
  bool system = false;   // a system library (not an absent dependency's)
  bool symbols() const { return binary && binary->symbols; }
};

class Scope {
 public:
  Scope(const WheelFacts& f, const InstallSet& set, const Policy& p) : f_(f), set_(set), p_(p) {}

  // The scope of `root` (a binary of f); false when one of its own needs is met nowhere (WC503's).
  bool build(const BinaryFacts& root) {
    seen_.insert(&root);  // a global library judged itself is not in its own scope twice
    globals();
    std::vector<std::pair<const WheelFacts*, const BinaryFacts*>> queue{{&f_, &root}};
    for (size_t i = 0; i < queue.size(); ++i)
      if (!visit(queue[i].first, *queue[i].second, queue, i == 0)) return false;
    return true;
  }

  const std::vector<Lib>& libs() const { return libs_; }
  const Lib* by_soname(std::string_view soname) const {
    for (const auto& l : libs_)
      if (l.soname == soname) return &l;
    return nullptr;
  }
  // Needs of loaded libraries that are met nowhere: (soname, the library needing it).
  const std::vector<std::pair<std::string, std::string>>& missing() const { return missing_; }
  bool absorbs() const {
    return std::any_of(libs_.begin(), libs_.end(), [](const Lib& l) { return l.absorbs; });
  }
  // A library of unknown symbols that is no system library: an absent dependency's, or a file of
  // the run whose symbols were not read. It may define anything, template instantiations of a
  // namespace a known library also defines among them.
  bool absorbs_anything() const {
    return std::any_of(libs_.begin(), libs_.end(), [](const Lib& l) { return l.absorbs && !l.system; });
  }

 private:
  void globals() {
    for (const auto& g : p_.cuda.import_globals)
      for (const auto* w : set_.wheels) {
        const BinaryFacts* b = import_loaded(*w, p_.cuda) ? shipped_library(*w, g) : nullptr;
        if (!b || !seen_.insert(b).second) continue;
        libs_.push_back({w, b, g, false, false});
        std::vector<std::pair<const WheelFacts*, const BinaryFacts*>> queue{{w, b}};
        for (size_t i = 0; i < queue.size(); ++i) visit(queue[i].first, *queue[i].second, queue, false);
      }
  }

  bool visit(const WheelFacts* w, const BinaryFacts& b,
             std::vector<std::pair<const WheelFacts*, const BinaryFacts*>>& queue, bool root) {
    for (const auto& need : b.needed) {
      if (by_soname(need)) continue;
      if (system_library(p_, need)) {
        libs_.push_back({nullptr, nullptr, need, !glob_any(p_.linux.versioned_libraries, need), true});
        continue;
      }
      if (auto lib = library_file(b, need, set_, p_.cuda)) {
        if (lib->binary && !seen_.insert(lib->binary).second) continue;
        libs_.push_back({lib->wheel, lib->binary, need, !lib->binary || !lib->binary->symbols, false});
        if (lib->binary) queue.emplace_back(lib->wheel, lib->binary);
        continue;
      }
      // Not in the run: a declared dependency's library whose wheel is absent may define anything;
      // a need met nowhere is WC503's finding for the root, and fails the root's load when a
      // library it loads has it.
      bool declared = !absent_dependency_for(*w, set_, p_, need).empty();
      if (root && !declared) return false;
      if (!declared) missing_.push_back({need, install_path(b.path)});
      libs_.push_back({nullptr, nullptr, need, true, false});
    }
    return true;
  }

  const WheelFacts& f_;
  const InstallSet& set_;
  const Policy& p_;
  std::vector<Lib> libs_;
  std::set<const BinaryFacts*> seen_;
  std::vector<std::pair<std::string, std::string>> missing_;
};

bool python_api(std::string_view name) { return name.starts_with("Py") || name.starts_with("_Py"); }

// A name of the C++ runtime (std::, operator new/delete, __cxa_*): libstdc++ exports the ones a
// library did not instantiate itself (std::string's members), so an unversioned reference a
// library once met binds there when libstdc++ is in the scope. A std:: template over a user type
// (std::vector<c10::IValue>) is never libstdc++'s.
bool cxx_runtime_name(std::string_view name) {
  if (name.starts_with("__cxa_") || name.starts_with("__gxx_") || name.starts_with("_Unwind_")) return true;
  if (!name.starts_with("_Z")) return false;
  std::string_view s = name.substr(2);
  if (s.size() > 1 && s[0] == 'T' && std::string_view("VIST").find(s[1]) != std::string_view::npos) s.remove_prefix(2);
  if (s.starts_with("N")) {
    s.remove_prefix(1);
    while (!s.empty() && std::string_view("rVKRO").find(s[0]) != std::string_view::npos) s.remove_prefix(1);
  }
  bool std_name = false;
  for (const char* p : {"St", "Sa", "Sb", "Ss", "Si", "So", "Sd", "nw", "na", "dl", "da"}) std_name |= s.starts_with(p);
  return std_name && classify_mangled(name).namespaces.empty();
}

struct Unbound {
  std::vector<std::string> symbols;  // shown, the first few
  size_t count = 0;
  std::vector<std::string> versions;  // version needs the file named does not define
};

// How each undefined name of one binary was met, for inspect: by which library of the scope, or
// taken on trust and why.
struct Tally {
  size_t undefined = 0;
  std::map<const Lib*, size_t> bound;
  std::map<std::string, size_t> trusted;
};

constexpr size_t kShownSymbols = 3;

// Whether a library of the scope whose symbols the run knows defines names in the namespace `ns`
// (c10 for libc10.so): then a name of that namespace binds there or nowhere, and a library of
// unknown symbols (libcuda.so.1, a system library) is not trusted to define it. The outermost
// namespaces the scope's definitions name (_ZN[rVKRO]*<len><id>...) are gathered once, on the first
// question (DynamicSymbols::defined_namespaces).
class Namespaces {
 public:
  explicit Namespaces(const Scope& scope) : scope_(scope) {}
  bool owned(std::string_view mangled) {
    if (!mangled.starts_with("_Z")) return false;
    MangledAbi m = classify_mangled(mangled);
    if (m.namespaces.empty()) return false;
    if (!gathered_) gather();
    return defined_.count(m.namespaces.front()) > 0;
  }

 private:
  void gather() {
    gathered_ = true;
    for (const auto& l : scope_.libs()) {
      if (!l.symbols()) continue;
      for (std::string_view ns : l.binary->symbols->defined_namespaces())
        if (!defined_.count(ns)) defined_.emplace(ns);
    }
  }
  const Scope& scope_;
  bool gathered_ = false;
  std::set<std::string, std::less<>> defined_;
};

Unbound bind_all(const BinaryFacts& root, const Scope& scope, const LinuxPolicy& lx, Tally* tally = nullptr) {
  Unbound out;
  const DynamicSymbols& syms = *root.symbols;
  // Version needs first: the loader refuses the file before binding any symbol. Weak needs
  // (VER_FLG_WEAK) it does not insist on. Sets, not scans: a file may claim 65,535 needs.
  std::set<std::pair<std::string_view, std::string_view>> weak;
  for (size_t i = 2; i < syms.version_count(); ++i) {
    auto k = static_cast<uint16_t>(i);
    if (const auto* rec = syms.version(k); rec && rec->weak) weak.emplace(syms.version_file(k), syms.version_name(k));
  }
  for (const auto& [file, versions] : root.version_needs) {
    const Lib* lib = scope.by_soname(file);
    if (!lib || !lib->symbols() || !lib->binary->symbols->versioned()) continue;
    const std::set<std::string_view> defs(lib->binary->version_defs.begin(), lib->binary->version_defs.end());
    for (const auto& v : versions) {
      if (weak.count({file, v}) || defs.count(v) || v == lib->binary->soname) continue;
      if (out.versions.size() < kShownSymbols)
        out.versions.push_back(v + " of " + file + (lib->wheel ? " (" + wheel_label(lib->wheel) + ")" : ""));
    }
  }
  const bool absorbs = scope.absorbs(), absorbs_anything = scope.absorbs_anything();
  const bool cxx_runtime = std::any_of(scope.libs().begin(), scope.libs().end(),
                                       [](const Lib& l) { return l.soname.starts_with("libstdc++.so"); });
  Namespaces namespaces(scope);
  std::string absorbing;  // the libraries of unknown symbols, for inspect's reason
  if (tally && absorbs)
    for (const auto& l : scope.libs())
      if (l.absorbs) absorbing += (absorbing.empty() ? "" : ", ") + l.soname;
  auto trust = [&](std::string reason) {
    if (tally) ++tally->trusted[std::move(reason)];
  };
  // Each string-table offset once, then each distinct name once: references naming one long string
  // cost one comparison, not one per reference.
  std::unordered_set<uint32_t> offsets;
  std::set<std::string_view> counted;
  for (const auto& u : syms.undefined()) {
    if (!offsets.insert(u.name).second) continue;
    std::string_view name = syms.name(u);
    if (!counted.insert(name).second) continue;
    if (tally) ++tally->undefined;
    const uint64_t h = DynamicSymbols::hash(name);
    const DynamicSymbols::Version* ver = u.version >= 2 ? syms.version(u.version) : nullptr;
    std::string_view want = ver ? syms.version_name(u.version) : std::string_view();
    std::string_view file = ver ? syms.version_file(u.version) : std::string_view();
    bool met = false;
    for (const auto& lib : scope.libs()) {
      if (!lib.symbols()) continue;
      const DynamicSymbols& d = *lib.binary->symbols;
      d.for_each_definition(name, h, [&](const DynamicSymbols::Symbol& def) {
        if (!ver)
          met = !def.hidden;
        else if (!d.versioned())
          met = true;  // an unversioned library's definition serves a versioned reference
        else
          met = d.version_name(def.version) == want || (def.version <= 1 && !def.hidden);
        return met;
      });
      if (met) {
        if (tally) ++tally->bound[&lib];
        break;
      }
    }
    if (met) continue;
    if (ver) {
      // Versioned to a file the run has no symbols of (a system library: WC502 judges the
      // version; a file no DT_NEEDED names: WC513): taken on trust.
      const Lib* named = scope.by_soname(file);
      met = !named || !named->symbols();
      if (met) trust("versioned to " + std::string(file) + " (no file of the run)");
    } else if (python_api(name)) {
      met = true, trust("the Python C API (the interpreter defines it)");
    } else if (lx.interpreter_symbols.count(name)) {
      met = true, trust("the C library names a Python process holds (linux.interpreter_symbols)");
    } else if (cxx_runtime && cxx_runtime_name(name)) {
      met = true, trust("C++ runtime names libstdc++ exports");
    } else if (absorbs && (absorbs_anything || !namespaces.owned(name))) {
      // A library whose symbols are unknown (a system library that does not version its exports,
      // an absent dependency's) may define it, unless its namespace belongs to a library of the
      // scope the run knows (libcuda.so.1 defines no c10:: name; libc10.so does).
      met = true, trust("a library of unknown symbols may define it (" + absorbing + ")");
    }
    if (met) continue;
    if (out.symbols.size() < kShownSymbols)
      out.symbols.push_back(shown_symbol(name) + (ver ? "@" + std::string(want) : std::string()));
    ++out.count;
  }
  return out;
}

std::string looked_in(const Scope& scope) {
  std::vector<std::string> files;
  std::map<std::string, std::vector<std::string>> by_wheel;
  size_t system = 0;
  for (const auto& l : scope.libs()) {
    if (l.symbols())
      by_wheel[wheel_label(l.wheel)].push_back(l.soname);
    else
      ++system;
  }
  for (auto& [w, libs] : by_wheel) {
    std::vector<std::string> shown(libs.begin(), libs.begin() + std::min<size_t>(libs.size(), 4));
    files.push_back(join(shown, ", ") + (libs.size() > 4 ? " and " + std::to_string(libs.size() - 4) + " more" : "") +
                    (w.empty() ? "" : " from " + w));
  }
  std::string s = files.empty() ? "no library file of the run" : join(files, "; ");
  if (system) s += " (and " + std::to_string(system) + " system or absent libraries)";
  return s;
}

std::string describe(const Unbound& u, const Scope& scope,
                     const std::vector<std::pair<std::string, std::string>>& missing, const std::string& loaded_by) {
  std::vector<std::string> parts;
  if (!u.versions.empty())
    parts.push_back("needs version " + join(u.versions, ", ") +
                    ", which the file found does not define (the loader refuses it: \"version not found\")");
  if (u.count)
    parts.push_back(std::to_string(u.count) + " undefined symbol" + (u.count == 1 ? "" : "s") +
                    " resolve nowhere the loader looks" +
                    (loaded_by.empty() ? "" : " when " + loaded_by + " loads it") + ": " + join(u.symbols, ", ") +
                    (u.count > u.symbols.size() ? " and " + std::to_string(u.count - u.symbols.size()) + " more" : "") +
                    "; looked in " + looked_in(scope) + ", none defines " + (u.count == 1 ? "it" : "them") +
                    " (ImportError: undefined symbol)");
  for (const auto& [need, by] : missing)
    parts.push_back("loads " + by + ", which needs " + need + ", found nowhere (WC503 there): the load fails with \"" +
                    need + ": cannot open shared object file\"");
  return join(parts, "; ");
}

// ld.so relocates every object a load brings in with the search list of the object opened: the
// wheel's entry points (extension modules, executables; each library when nothing of the wheel
// loads it) are loaded each with its whole closure as the scope, and every object of the wheel in
// that closure binds there (libtorch_nvshmem.so's c10::cuda symbols come from libc10_cuda.so, which
// only torch/_C's closure holds). An object fails when it binds in no load that brings it in; an
// entry fails when an object of its load does.
void unresolved_symbols(const WheelFacts& f, const InstallSet& set, const LoadGraph& graph, FindingSink& s) {
  auto judgeable = [](const BinaryFacts& b) {
    return b.format == "elf" && !device_processor(b.arch) && !b.headers_only && b.symbols && b.errors.empty();
  };
  struct Verdict {
    bool ok = false, missing_library = false;  // binds in some load; fails on a need WC503 reports
    std::string msg;                           // why it failed in the first load that failed it
  };
  std::map<const BinaryFacts*, Verdict> verdicts;
  auto note = [&](const BinaryFacts* b, const std::string& msg, bool missing_library) {
    auto [it, fresh] = verdicts.try_emplace(b);
    if (msg.empty()) it->second.ok = true;
    if (!msg.empty() && it->second.msg.empty()) it->second.msg = msg, it->second.missing_library = missing_library;
  };
  struct Load {
    const BinaryFacts* root;
    std::vector<const BinaryFacts*> objects;  // the wheel's, the root first
  };
  std::vector<Load> loads;
  auto load = [&](const BinaryFacts& root) {
    Scope scope(f, set, s.policy());
    if (!scope.build(root)) {  // a needed library is missing: WC503 says so; what loads it fails too
      note(&root, "a needed library is missing (WC503)", true);
      return;
    }
    Load l{&root, {&root}};
    // A load in which a library misses a need fails as a whole: the other objects of the wheel it
    // brings in are not credited with it, and are judged in their own loads (torchcodec's
    // custom_ops library fails where its sibling core library misses FFmpeg's libavutil).
    if (scope.missing().empty())
      for (const auto& lib : scope.libs())
        if (lib.wheel == &f && lib.binary && judgeable(*lib.binary)) l.objects.push_back(lib.binary);
    for (const auto* o : l.objects) {
      if (o != &root && verdicts.count(o) && verdicts.at(o).ok) continue;  // bound in an earlier load
      note(o,
           describe(bind_all(*o, scope, s.policy().linux), scope,
                    o == &root ? scope.missing() : decltype(scope.missing()){},
                    o == &root ? "" : install_path(root.path)),
           false);
    }
    loads.push_back(std::move(l));
  };
  for (const auto& b : f.binaries)
    if (judgeable(b) && graph.entry(f, b)) load(b);
  for (const auto& b : f.binaries)  // brought in by no entry of the wheel: on its own
    if (judgeable(b) && !verdicts.count(&b)) load(b);
  auto fails = [&](const BinaryFacts* b) { return verdicts.count(b) && !verdicts.at(b).ok; };
  // An entry whose load brings in a failing object fails with it (to a fixed point).
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& l : loads) {
      if (fails(l.root)) continue;
      for (const auto* o : l.objects) {
        if (o == l.root || !fails(o)) continue;
        auto& v = verdicts[l.root];
        v.ok = false;
        v.msg = "loads " + install_path(o->path) + ", which fails to load (" +
                (verdicts.at(o).missing_library ? "WC503" : "WC514") + " there), so this fails too";
        changed = true;
        break;
      }
    }
  }
  for (const auto& b : f.binaries) {
    auto it = verdicts.find(&b);
    if (it == verdicts.end() || it->second.ok || it->second.missing_library) continue;
    bool loaded = graph.loaded(f, b);
    std::string msg = it->second.msg;
    if (!loaded)
      msg += "; nothing in the run loads " + install_path(b.path) + ", so this fails only where something does";
    s.add("WC514", msg, b.path, std::nullopt, loaded ? std::nullopt : std::optional(Severity::warning));
  }
}

// PE: every name a binary imports from a DLL the run ships must be one that DLL exports, by name or
// by ordinal ("#N"), a forwarder followed to the DLL it names (up to 8 hops; a DLL outside the run,
// the system's, is taken on trust). Windows binds a DLL already loaded by its base name
// (delvewheel's <pkg>.libs preloaded, the folders a package adds with os.add_dll_directory: torch
// loads every DLL of torch/lib), so DLLs are matched by file name, in any case; a DLL the run does
// not ship is the system's, the MSVC runtime or a dependency's, and is not judged. A delay-loaded
// name binds at its first call: missing, a warning.
class PeExports {
 public:
  explicit PeExports(const InstallSet& set) {
    for (const auto* w : set.wheels)
      for (const auto& b : w->binaries)
        if (b.format == "pe" && b.pe_exports_read && b.errors.empty())
          by_name_.emplace(to_lower(std::string(last_component(b.path))), std::make_pair(w, &b));
  }
  const std::pair<const WheelFacts*, const BinaryFacts*>* dll(const std::string& name) const {
    auto it = by_name_.find(to_lower(name));
    return it == by_name_.end() ? nullptr : &it->second;
  }
  // Whether `lib` exports `name`, following forwarders.
  bool exports(const BinaryFacts* lib, const std::string& name, int hops = 0) {
    auto& e = table(lib);
    if (!e.names.count(name)) return false;
    auto fw = e.forwarders.find(name);
    if (fw == e.forwarders.end()) return true;
    if (hops >= 8) return false;           // a forwarding loop: the loader gives up too
    const std::string target(fw->second);  // "OTHER.name", "OTHER.#N"
    auto dot = target.find('.');
    if (dot == std::string::npos) return false;
    std::string other = target.substr(0, dot);
    if (!ends_with_ci(other, ".dll")) other += ".dll";
    const auto* next = dll(other);
    return !next || exports(next->second, target.substr(dot + 1), hops + 1);
  }

 private:
  struct Table {
    std::set<std::string_view> names;
    std::map<std::string_view, std::string_view> forwarders;
  };
  Table& table(const BinaryFacts* lib) {
    auto [it, fresh] = tables_.try_emplace(lib);
    if (fresh) {
      it->second.names.insert(lib->pe_exports.begin(), lib->pe_exports.end());
      for (const auto& [from, to] : lib->pe_forwarders) it->second.forwarders.emplace(from, to);
    }
    return it->second;
  }
  std::map<std::string, std::pair<const WheelFacts*, const BinaryFacts*>> by_name_;
  std::map<const BinaryFacts*, Table> tables_;
};

void pe_imports(const WheelFacts& f, const InstallSet& set, FindingSink& s) {
  PeExports run(set);
  for (const auto& b : f.binaries) {
    if (b.format != "pe" || b.headers_only || !b.errors.empty()) continue;
    for (const bool delayed : {false, true}) {
      size_t count = 0;
      std::vector<std::string> shown, from;
      for (const auto& [dll, names] : delayed ? b.dll_delay_imports : b.dll_imports) {
        const auto* found = run.dll(dll);
        if (!found) continue;
        const auto& [w, lib] = *found;
        size_t before = count;
        for (const auto& n : names)
          if (!run.exports(lib, n) && ++count <= kShownSymbols) shown.push_back(dll + "!" + clip_for_display(n, 160));
        if (count > before) from.push_back(dll + (w == &f ? "" : " from " + wheel_label(w)));
      }
      if (!count) continue;
      s.add("WC514",
            std::to_string(count) + (delayed ? " delay-loaded" : "") + " imported name" + (count == 1 ? "" : "s") +
                " that no DLL of the run exports: " + join(shown, ", ") +
                (count > shown.size() ? " and " + std::to_string(count - shown.size()) + " more" : "") + " (" +
                join(from, ", ") + " export" + (from.size() == 1 ? "s" : "") + " no such name" +
                (delayed ? "): the first call of one fails (\"The specified procedure could not be found\"), not "
                           "the load"
                         : "): Windows refuses the load (\"The specified procedure could not be found\")"),
            b.path, std::nullopt, delayed ? std::optional(Severity::warning) : std::nullopt);
    }
  }
}

// Names a binary defines that ld.so cannot find through its GNU hash table: no reference binds
// them (an extension whose PyInit_ is among them does not import: "dynamic module does not define
// module export function").
void unreachable_exports(const WheelFacts& f, FindingSink& s) {
  for (const auto& b : f.binaries) {
    if (b.format != "elf" || !b.unreachable_exports) continue;
    std::vector<std::string> shown;
    for (const auto& n : b.unreachable_shown) shown.push_back(shown_symbol(n));
    s.add("WC514",
          std::to_string(b.unreachable_exports) + " defined name" + (b.unreachable_exports == 1 ? "" : "s") +
              " cannot be found through the GNU hash table (its chain hash or bloom filter does not lead to " +
              (b.unreachable_exports == 1 ? "it" : "them") + "): " + join(shown, ", ") +
              (b.unreachable_exports > shown.size()
                   ? " and " + std::to_string(b.unreachable_exports - shown.size()) + " more"
                   : "") +
              "; ld.so binds no reference to them, and dlsym (Python's PyInit_ lookup) does not find them",
          b.path);
  }
}

void duplicate_runtimes(const WheelFacts& f, const InstallSet& set, const LoadGraph& graph, FindingSink& s) {
  const auto& runtimes = s.policy().linux.runtimes;
  if (runtimes.empty()) return;
  // Files of one soname are one copy: the loader binds a second need of that name to the first.
  std::map<std::string, std::map<std::string, std::pair<const WheelFacts*, const BinaryFacts*>>> copies;
  for (const auto* w : set.wheels)
    for (const auto& b : w->binaries) {
      if (b.format != "elf" || b.headers_only || !graph.loaded(*w, b)) continue;
      std::string r = runtime_of(b, runtimes);
      std::string soname = b.soname.empty() ? std::string(last_component(b.path)) : b.soname;
      if (r.empty()) continue;
      auto& slot = copies[r][soname];
      if (!slot.first || (w == &f && slot.first != &f)) slot = {w, &b};
    }
  for (const auto& [runtime, by_soname] : copies) {
    if (by_soname.size() < 2) continue;
    const BinaryFacts* own = nullptr;
    std::vector<std::string> where;
    for (const auto& [soname, copy] : by_soname) {
      const auto& [w, b] = copy;
      if (w == &f && !own) own = b;
      where.push_back(install_path(b->path) + (w == &f ? "" : " (" + wheel_label(w) + ")"));
    }
    if (!own) continue;  // reported on the wheels that ship one
    s.add("WC516",
          std::to_string(by_soname.size()) + " copies of " + runtime + " load into one process: " + join(where, ", ") +
              "; two copies keep two states (thread pools, I/O units) and can crash or oversubscribe",
          own->path);
  }
}

// WC517: a Requires-Dist of the wheel excludes every wheel of that project the run installs with
// it. pip refuses such a set; forced (two installs, or --no-deps), the process gets the wheel that
// is there, and every other rule judges the binaries against it.
void install_conflicts(const WheelFacts& f, const InstallSet& set, FindingSink& s) {
  for (const auto& c : set.conflicts) {
    if (c.requirer != &f) continue;
    const WheelFilename& p = c.provider->filename;
    s.add("WC517",
          "Requires-Dist " + clip_for_display(c.requirement, 200) + " excludes " + p.canonical_name + " " +
              p.version_text + " (" + std::string(last_component(c.provider->path)) + "), the only " +
              p.canonical_name +
              " of the run installable with it: pip refuses to install them together (ResolutionImpossible); "
              "installed anyway (two steps, or --no-deps), the process loads " +
              p.canonical_name + " " + p.version_text + ", and the binaries are judged against it",
          f.dist_info + "/METADATA");
  }
}

}  // namespace

std::vector<SymbolBinding> symbol_bindings(const WheelFacts& f, const InstallSet& set, const Policy& p) {
  std::vector<SymbolBinding> out;
  for (const auto& b : f.binaries) {
    if (b.format != "elf" || device_processor(b.arch) || b.headers_only) continue;
    SymbolBinding sb;
    sb.binary = b.path;
    Scope scope(f, set, p);
    if (!b.errors.empty())
      sb.not_judged = "it could not be parsed (WC508)";
    else if (!b.symbols)
      sb.not_judged = "its dynamic symbols were not read";
    else if (!scope.build(b))
      sb.not_judged = "a library it needs is found nowhere (WC503)";
    if (!sb.not_judged.empty()) {
      out.push_back(std::move(sb));
      continue;
    }
    Tally t;
    sb.unbound = bind_all(b, scope, p.linux, &t).count;
    sb.undefined = t.undefined;
    for (const auto& [lib, n] : t.bound)
      sb.bound.emplace_back(install_path(lib->binary->path) +
                                (lib->wheel && lib->wheel != &f ? " (" + wheel_label(lib->wheel) + ")" : ""),
                            n);
    sb.trusted.assign(t.trusted.begin(), t.trusted.end());
    for (auto* v : {&sb.bound, &sb.trusted})
      std::stable_sort(v->begin(), v->end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    out.push_back(std::move(sb));
  }
  auto macho = macho_symbol_bindings(f, set, p);
  out.insert(out.end(), std::make_move_iterator(macho.begin()), std::make_move_iterator(macho.end()));
  return out;
}

void link_rules(const WheelFacts& f, const InstallSet& set, FindingSink& s) {
  install_conflicts(f, set, s);
  if (f.filename.valid && std::all_of(f.filename.platform_tags.begin(), f.filename.platform_tags.end(),
                                      [](const std::string& t) { return t == "any"; }))
    return;  // content_rules judges native files of pure wheels
  pe_imports(f, set, s);
  macho_binds(f, set, s);
  if (std::none_of(f.binaries.begin(), f.binaries.end(), [](const BinaryFacts& b) { return b.format == "elf"; }))
    return;
  unreachable_exports(f, s);
  LoadGraph graph(set);
  unresolved_symbols(f, set, graph, s);
  duplicate_runtimes(f, set, graph, s);
}

}  // namespace wc
