// WC511-WC513: audits of the symbols each binary imports and names, from the dynamic tables the
// single read pass already holds (no second extraction, no nm or c++filt process).
//  - WC511 (abi3audit's job and more): an abi3 (or abi3t) wheel's binaries import only the stable
//    ABI, each symbol stable no later than the wheel's cpXY; Windows binaries link python3.dll;
//    abi3t modules export PyInit_<name> or PyModExport_<name> and do not define themselves
//    through the (there opaque) PyModuleDef (PEP 793, PEP 803).
//  - WC512 (PyTorch's check_binary_symbols.py): no pre-C++11 std::basic_string/std::list in the
//    policy's namespaces, and enough C++11-ABI symbols in the policy's libraries.
//  - WC513: every library the symbol-version needs name is a DT_NEEDED entry.
#include <map>
#include <set>

#include "binary/binary_facts.h"
#include "rules/loader/resolution.h"
#include "rules/rules.h"
#include "util/parse.h"
#include "util/strings.h"
#include "wheel/entry_names.h"

namespace wc {
namespace {

struct PyVersion {
  int major = 0, minor = 0;
  bool operator<(const PyVersion& o) const { return major != o.major ? major < o.major : minor < o.minor; }
  std::string str() const { return std::to_string(major) + "." + std::to_string(minor); }
};

std::optional<PyVersion> dotted(std::string_view s) {
  auto dot = s.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  auto a = parse_small(s.substr(0, dot), 99), b = parse_small(s.substr(dot + 1), 999);
  if (!a || !b) return std::nullopt;
  return PyVersion{*a, *b};
}

// The oldest CPython a wheel's cpXY tags name (cp38.cp39 -> 3.8); nullopt without a cp tag.
std::optional<PyVersion> oldest_cpython(const WheelFilename& w) {
  std::optional<PyVersion> out;
  for (const auto& t : w.python_tags) {
    if (!t.starts_with("cp") || t.size() < 4) continue;
    auto minor = parse_small(std::string_view(t).substr(3), 999);
    if (t[2] != '3' || !minor) continue;
    PyVersion v{3, *minor};
    if (!out || v < *out) out = v;
  }
  return out;
}

bool python_api_name(std::string_view s) { return s.starts_with("Py") || s.starts_with("_Py"); }

// The DLL an abi3 extension links on Windows: python3.dll (python3t.dll for abi3t).
bool version_neutral_dll(std::string_view dll) {
  std::string l = to_lower(std::string(dll));
  return l == "python3.dll" || l == "python3t.dll";
}

std::string listed(const std::vector<std::string>& items, size_t shown = 8) { return join_shown(items, shown); }

const AbiPolicy::SymbolWaiver* waiver_for(const AbiPolicy& abi, const std::string& symbol, const std::string& entry) {
  for (const auto& w : abi.waive_symbols)
    if (glob_match(w.symbol, symbol) && (w.path.empty() || glob_match(w.path, entry))) return &w;
  return nullptr;
}

void abi3_binary(const BinaryFacts& b, const PyVersion& floor, const std::string& tag, const AbiPolicy& abi,
                 FindingSink& s) {
  if (b.headers_only) return;
  if (!b.undefined_symbols_read) {
    if (b.format == "elf" && is_extension_module(b))
      s.add("WC511",
            "extension not audited: its dynamic symbol table could not be located (no section header names it and "
            "no DT_HASH sizes it), so its imports are unknown",
            b.path, std::nullopt, Severity::warning);
    return;
  }
  // Windows: the import must come from the version-neutral DLL.
  for (const auto& [dll, names] : b.python_dll_imports)
    if (!version_neutral_dll(dll))
      s.add("WC511",
            "imports " + std::to_string(names.size()) + " symbols from " + dll +
                ", one CPython version's DLL: an abi3 extension links python3.dll, or it fails to load on every "
                "other version",
            b.path);
  std::vector<std::string> outside, later;
  std::map<const AbiPolicy::SymbolWaiver*, std::vector<std::string>> waived;
  std::set<std::string> seen;
  for (const auto name : imported_names(b)) {
    if (!python_api_name(name)) continue;
    const std::string sym(name);
    if (!seen.insert(sym).second) continue;
    auto it = abi.stable_abi.find(sym);
    std::string why;
    if (it == abi.stable_abi.end()) {
      why = sym + " (not in the stable ABI)";
    } else if (auto v = dotted(it->second); v && floor < *v) {
      why = sym + " (stable from " + it->second + ")";
    } else {
      continue;
    }
    if (const auto* w = waiver_for(abi, sym, b.path)) {
      waived[w].push_back(sym);
      continue;
    }
    (it == abi.stable_abi.end() ? outside : later).push_back(why);
  }
  if (!outside.empty() || !later.empty()) {
    std::vector<std::string> all = outside;
    all.insert(all.end(), later.begin(), later.end());
    s.add("WC511",
          "imports " + std::to_string(all.size()) + " Python C-API symbol" + (all.size() == 1 ? "" : "s") +
              " that the stable ABI of " + tag + " does not offer: " + listed(all) +
              (outside.empty() ? "" : "; built without Py_LIMITED_API, or against a newer limited API than the tag"),
          b.path);
  }
  for (const auto& [w, syms] : waived)
    s.add_waived("WC511", "imports " + listed(syms) + " outside the stable ABI of " + tag, b.path, w->reason);
}

// PEP 803: abi3t makes PyObject, and so PyModuleDef, opaque. A module is still found through its
// PyInit_<name> or PEP 793's PyModExport_<name>; what abi3t cannot use is a PyModuleDef-based
// definition (PyModuleDef_Init for multi-phase init, PyModule_Create2 / PyModule_FromDefAndSpec2
// for single-phase). A cffi module that builds its module without PyModuleDef and exports PyInit_
// is fine (abi3audit agrees).
void abi3t_binary(const BinaryFacts& b, FindingSink& s) {
  if (b.format != "elf" || !b.undefined_symbols_read || !is_extension_module(b)) return;
  std::string_view file = last_component(b.path);
  std::string stem(file.substr(0, file.find('.')));
  auto exports = [&](const std::string& name) {
    return std::find(b.module_inits.begin(), b.module_inits.end(), name) != b.module_inits.end();
  };
  if (exports("PyModExport_" + stem)) return;
  if (!exports("PyInit_" + stem)) {
    s.add("WC511",
          "abi3t extension exports neither PyModExport_" + stem + " (PEP 793) nor PyInit_" + stem +
              ": the interpreter finds no module in it",
          b.path);
    return;
  }
  std::vector<std::string> def_api;
  const auto imports = imported_names(b);
  for (const char* f : {"PyModuleDef_Init", "PyModule_Create2", "PyModule_FromDefAndSpec2", "PyModule_ExecDef"})
    if (std::find(imports.begin(), imports.end(), f) != imports.end()) def_api.push_back(f);
  if (!def_api.empty())
    s.add("WC511",
          "abi3t extension defines its module through PyModuleDef (imports " + join(def_api, ", ") +
              "), which the free-threaded stable ABI makes opaque (PEP 803): export PyModExport_" + stem +
              " (PEP 793) instead",
          b.path);
}

void abi3_rules(const WheelFacts& f, FindingSink& s) {
  const auto& abis = f.filename.abi_tags;
  bool abi3 = std::find(abis.begin(), abis.end(), "abi3") != abis.end();
  bool abi3t = std::find(abis.begin(), abis.end(), "abi3t") != abis.end();
  if (!abi3 && !abi3t) return;
  auto floor = oldest_cpython(f.filename);
  if (!floor) return;  // abi3 with a non-CPython python tag is WC105's
  const AbiPolicy& abi = s.policy().abi;
  if (abi.stable_abi.empty()) return;
  std::string tag = "cp" + std::to_string(floor->major) + std::to_string(floor->minor);
  if (abi3t && *floor < PyVersion{3, 15})
    s.add("WC511", "abi3t (PEP 803) exists from CPython 3.15; the python tag says " + tag + "");
  for (const auto& b : f.binaries) {
    abi3_binary(b, *floor, tag, abi, s);
    if (abi3t) abi3t_binary(b, s);
  }
}

void cxx11_rules(const WheelFacts& f, FindingSink& s) {
  const auto& cfg = s.policy().abi.cxx11;
  if (!cfg) return;
  for (const auto& b : f.binaries) {
    if (b.format != "elf" || !b.cxx_abi_read) continue;
    uint64_t cxx11 = 0;
    std::vector<std::string> where, examples;
    for (const auto& ns : cfg->namespaces) {
      auto it = b.cxx_abi.find(ns);
      if (it == b.cxx_abi.end()) continue;
      cxx11 += it->second.cxx11;
      if (it->second.pre_cxx11) {
        where.push_back(ns + " (" + std::to_string(it->second.pre_cxx11) + ")");
        for (const auto& e : it->second.pre_examples)
          if (examples.size() < 3 && std::find(examples.begin(), examples.end(), e) == examples.end())
            examples.push_back(e);
      }
    }
    if (!where.empty())
      s.add("WC512",
            "pre-C++11 std::basic_string/std::list symbols (built with _GLIBCXX_USE_CXX11_ABI=0) in " +
                join(where, ", ") + ", e.g. " + join(examples, ", "),
            b.path);
    bool listed_library = std::any_of(cfg->libraries.begin(), cfg->libraries.end(),
                                      [&](const std::string& g) { return glob_match(g, b.path); });
    if (listed_library && cxx11 < cfg->min_cxx11_symbols)
      s.add("WC512",
            "only " + std::to_string(cxx11) + " symbol" + (cxx11 == 1 ? "" : "s") + " in " +
                join(cfg->namespaces, "/") + " use the C++11 std::__cxx11::basic_string/list (at least " +
                std::to_string(cfg->min_cxx11_symbols) + " expected): a stripped or pre-C++11 build",
            b.path);
  }
}

void version_need_rules(const WheelFacts& f, FindingSink& s) {
  for (const auto& b : f.binaries) {
    if (b.format != "elf" || b.headers_only) continue;
    for (const auto& [lib, versions] : b.version_needs)
      if (std::find(b.needed.begin(), b.needed.end(), lib) == b.needed.end())
        s.add("WC513",
              "symbol versions (" + listed(versions, 4) + ") are needed from " + lib +
                  ", which no DT_NEEDED entry names (needed: " + (b.needed.empty() ? "none" : listed(b.needed, 6)) +
                  "); ld.so stops with an assertion at load: a repair tool renamed one and not the other",
              b.path);
  }
}

}  // namespace

void symbol_rules(const WheelFacts& f, FindingSink& s) {
  abi3_rules(f, s);
  cxx11_rules(f, s);
  version_need_rules(f, s);
}

}  // namespace wc
