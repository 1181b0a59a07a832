// WC515: PyTorch's ABI against the torch requirement. torch's C++ ABI (c10::, at::, torch::) changes
// every minor release, so an extension on it works with the one minor release it was built
// against: its requirement must admit no other. An extension on the stable ABI works with every
// torch that has the shims it calls: its requirement must admit none older than the newest one
// (policies/torch_stable_abi.json, generated from torch's headers).
#include <algorithm>
#include <set>

#include "binary/binary_facts.h"
#include "binary/mangled.h"
#include "rules/loader/torch_abi.h"
#include "rules/rules.h"
#include "util/parse.h"
#include "util/strings.h"
#include "wheel/entry_names.h"
#include "wheel/requirement.h"
#include "wheel/version.h"

namespace wc {
namespace {

// The <source-name> at the front of `s` (<length><identifier>); "" when there is none.
std::string_view source_name(std::string_view s) {
  uint64_t n = 0;
  if (!consume_number(s, s.size(), n) || n == 0) return {};
  return s.substr(0, n);
}

// A torch library by file name: libtorch*.so / libc10*.so (ELF), libtorch*.dylib / libc10*.dylib
// (Mach-O, any install-name prefix), torch*.dll / c10*.dll (PE).
bool torch_library(std::string_view name) {
  std::string_view leaf = last_component(name);
  if (leaf.starts_with("libtorch") || leaf.starts_with("libc10"))
    return leaf.find(".so") != std::string_view::npos || leaf.ends_with(".dylib");
  return (leaf.starts_with("torch") || leaf.starts_with("c10")) && ends_with_ci(leaf, ".dll");
}

bool links_torch(const BinaryFacts& b) {
  if (b.format == "pe")
    return std::any_of(b.dll_imports.begin(), b.dll_imports.end(),
                       [](const auto& d) { return torch_library(to_lower(d.first)); });
  if (b.format == "macho")
    return std::any_of(b.slices.begin(), b.slices.end(), [](const MachOSlice& sl) {
      return std::any_of(sl.dylibs.begin(), sl.dylibs.end(), [](const std::string& d) { return torch_library(d); });
    });
  return std::any_of(b.needed.begin(), b.needed.end(), [](const std::string& n) { return torch_library(n); });
}

// An MSVC-decorated name (?name@scope@...@@type) in torch's unstable C++ ABI: a c10, at, torch or
// caffe2 scope other than torch::stable and torch::headeronly.
bool unstable_msvc_symbol(std::string_view name) {
  if (!name.starts_with('?')) return false;
  auto end = name.find("@@");
  if (end == std::string_view::npos) return false;
  std::string_view scopes = name.substr(0, end + 1);  // "?f@b@a@" : innermost first
  std::vector<std::string_view> parts;
  for (size_t at = scopes.find('@'); at != std::string_view::npos;) {
    size_t next = scopes.find('@', at + 1);
    if (next == std::string_view::npos) break;
    parts.push_back(scopes.substr(at + 1, next - at - 1));
    at = next;
  }
  if (parts.empty()) return false;
  std::string_view outer = parts.back();
  if (outer == "c10" || outer == "at" || outer == "caffe2") return true;
  if (outer != "torch") return false;
  return parts.size() < 2 || (parts[parts.size() - 2] != "stable" && parts[parts.size() - 2] != "headeronly");
}

// The names a binary imports from torch: ELF and Mach-O undefined symbols, PE imports from torch's DLLs.
std::vector<std::string_view> torch_imports(const BinaryFacts& b) {
  std::vector<std::string_view> out;
  if (b.format == "pe") {
    for (const auto& [dll, names] : b.dll_imports)
      if (torch_library(to_lower(dll))) out.insert(out.end(), names.begin(), names.end());
  } else {
    out = imported_names(b);
  }
  return out;
}

bool shim_name(std::string_view s) { return s.starts_with("aoti_") || s.starts_with("torch_"); }

}  // namespace

bool unstable_torch_symbol(std::string_view mangled) {
  if (!mangled.starts_with("_Z")) return false;
  MangledAbi m = classify_mangled(mangled);
  bool torch = false;
  for (auto ns : m.namespaces) {
    if (ns == "c10" || ns == "at" || ns == "caffe2") return true;
    torch |= ns == "torch";
  }
  if (!torch) return false;
  // torch::headeronly and torch::stable are the stable ABI's C++ face: every other torch:: name
  // is unstable. Each "5torch" token followed by a nested name is looked at.
  for (size_t at = mangled.find("5torch"); at != std::string_view::npos; at = mangled.find("5torch", at + 1)) {
    if (at > 0 && is_digit(mangled[at - 1])) continue;  // part of a longer length
    std::string_view rest = mangled.substr(at + 6);
    if (rest.empty() || !is_digit(rest[0])) continue;
    std::string_view inner = source_name(rest);
    if (inner != "stable" && inner != "headeronly") return true;
  }
  return false;
}

TorchAbi torch_abi_of(const BinaryFacts& b, const AbiPolicy& abi) {
  TorchAbi t;
  if (b.headers_only || (b.format != "pe" && !b.undefined_symbols_read) || !links_torch(b)) return t;
  t.links_torch = true;
  for (std::string_view view : torch_imports(b)) {
    const std::string sym(view);
    if (shim_name(sym)) {
      t.shims.push_back(sym);
      auto it = abi.torch_shims.find(sym);
      if (it == abi.torch_shims.end()) {
        if (sym.starts_with("aoti_torch_")) t.unknown_shims.push_back(sym);
        continue;
      }
      if (t.min_torch.empty() || compare_dotted(it->second, t.min_torch) > 0) {
        t.min_torch = it->second;
        t.newest_shim = sym;
      }
    } else if (unstable_torch_symbol(sym) || unstable_msvc_symbol(sym)) {
      if (!t.unstable++) t.first_unstable = sym;
    }
  }
  t.stable = t.unstable == 0;
  return t;
}

namespace {

// The (major, minor) releases a specifier admits, probed from 1.0 to 3.99 (each minor's .0 and a
// late patch); `later` when the last probe is admitted (no upper bound).
struct Admitted {
  std::vector<std::pair<int, int>> minors;
  bool later = false;
  std::string describe() const {
    if (minors.empty()) return "no torch release";
    auto str = [](std::pair<int, int> v) { return std::to_string(v.first) + "." + std::to_string(v.second); };
    if (minors.size() == 1) return str(minors[0]) + " only";
    return str(minors.front()) + (later ? " and every later release" : " to " + str(minors.back()));
  }
};

// A minor release is admitted when each specifier admits its .0 or a late patch (one torch must
// satisfy them all, as pip installs one).
Admitted admitted_by(const std::vector<SpecifierSet>& specs) {
  Admitted a;
  for (int major = 1; major <= 3; ++major)
    for (int minor = 0; minor < 100; ++minor) {
      const std::string release = std::to_string(major) + "." + std::to_string(minor) + ".";
      const auto v0 = parse_version(release + "0"), v9 = parse_version(release + "9");
      bool ok = std::all_of(specs.begin(), specs.end(),
                            [&](const SpecifierSet& s) { return s.contains(*v0) || s.contains(*v9); });
      if (!ok) continue;
      a.minors.emplace_back(major, minor);
      a.later = major == 3 && minor == 99;
    }
  return a;
}

// The torch requirements that hold on the wheel's platform (no extras), as one admitted set.
struct TorchRequirement {
  std::vector<std::string> lines;
  Admitted admitted;
};

TorchRequirement torch_requirement(const WheelFacts& f) {
  TorchRequirement out;
  std::vector<SpecifierSet> specs;
  if (f.metadata) {
    MarkerEnvironment env = environment_for(f.filename);
    for (const auto& line : f.metadata->get_all("Requires-Dist")) {
      auto r = parse_requirement(line);
      if (!r || r->canonical_name != "torch" || evaluate(*r, env) == Truth::no) continue;
      out.lines.push_back(line);
      if (auto s = SpecifierSet::parse(r->specifier)) specs.push_back(std::move(*s));
    }
  }
  out.admitted = admitted_by(specs);
  return out;
}

// "2.15" of "2.15.0+cu130".
std::string minor_of(const std::string& version) {
  auto v = parse_version(version);
  if (!v || v->release.size() < 2) return version;
  return std::to_string(v->release[0]) + "." + std::to_string(v->release[1]);
}

// The torch wheel of the install set that defines every unstable torch name `b` imports (ELF: the
// dynamic symbols of its libraries; PE: its DLLs' export directories): "torch 2.15.0", or "".
std::string built_against(const BinaryFacts& b, const InstallSet& set) {
  std::vector<std::string_view> wanted;
  for (auto sym : torch_imports(b))
    if (unstable_torch_symbol(sym) || unstable_msvc_symbol(sym)) wanted.push_back(sym);
  if (wanted.empty()) return "";
  for (const auto* w : set.wheels) {
    if (!w->filename.valid || w->filename.canonical_name != "torch") continue;
    std::set<std::string_view> pe_exports;
    for (const auto& lib : w->binaries)
      if (lib.format == "pe" && torch_library(to_lower(std::string(last_component(lib.path)))))
        pe_exports.insert(lib.pe_exports.begin(), lib.pe_exports.end());
    bool all = std::all_of(wanted.begin(), wanted.end(), [&](std::string_view sym) {
      if (b.format == "pe") return pe_exports.count(sym) > 0;
      const uint64_t h = DynamicSymbols::hash(sym);
      return std::any_of(w->binaries.begin(), w->binaries.end(), [&](const BinaryFacts& lib) {
        if (!lib.symbols || !torch_library(lib.path)) return false;
        bool found = false;
        lib.symbols->for_each_definition(sym, h, [&](const DynamicSymbols::Symbol&) { return found = true; });
        return found;
      });
    });
    if (all && (b.format == "elf" || b.format == "pe")) return "torch " + w->filename.version_text;
  }
  return "";
}

}  // namespace

void torch_abi_rules(const WheelFacts& f, const InstallSet& set, FindingSink& s) {
  if (f.filename.valid && (f.filename.canonical_name == "torch" || f.filename.canonical_name == "libtorch")) return;
  std::optional<TorchRequirement> req;
  for (const auto& b : f.binaries) {
    if (b.headers_only) continue;
    TorchAbi t = torch_abi_of(b, s.policy().abi);
    if (!t.links_torch) continue;
    if (!req) req = torch_requirement(f);
    std::string required =
        req->lines.empty() ? "no Requires-Dist names torch" : "Requires-Dist " + join(req->lines, "; ") + " admits";
    if (!t.stable) {
      if (req->admitted.minors.size() <= 1 && !req->lines.empty()) continue;
      std::string d = demangle_for_display(t.first_unstable);
      std::string against = built_against(b, set);
      s.add("WC515",
            "uses torch's unstable C++ ABI (" + std::to_string(t.unstable) + " symbol" + (t.unstable == 1 ? "" : "s") +
                ", first " + clip_for_display(t.first_unstable, 120) + (d.empty() ? "" : " (" + d + ")") +
                "), which holds within one minor release, but " + required +
                (req->lines.empty() ? "" : " " + req->admitted.describe()) +
                (against.empty() ? ": pin the release it was built against (torch==X.Y.*)"
                                 : "; " + against + " of the run defines all " + std::to_string(t.unstable) +
                                       " of them: pin that release (torch==" + minor_of(against.substr(6)) + ".*)"),
            b.path, std::nullopt, Severity::warning);
      continue;
    }
    if (t.min_torch.empty()) continue;
    std::vector<std::pair<int, int>> older;
    for (const auto& m : req->admitted.minors)
      if (compare_dotted(std::to_string(m.first) + "." + std::to_string(m.second), t.min_torch) < 0) older.push_back(m);
    if (older.empty()) continue;
    // No torch requirement at all (torchao leaves the torch build to the user): a warning, the
    // package may guard its loading; a requirement that admits too old a torch: an error.
    s.add(
        "WC515",
        "uses the LibTorch stable ABI, newest shim " + t.newest_shim + " (torch " + t.min_torch + "), but " + required +
            (req->lines.empty() ? "" : " " + req->admitted.describe()) + ", and torch " +
            std::to_string(older.front().first) + "." + std::to_string(older.front().second) +
            (older.size() > 1 ? " to " + std::to_string(older.back().first) + "." + std::to_string(older.back().second)
                              : "") +
            " lack it: require torch>=" + t.min_torch,
        b.path, std::nullopt, req->lines.empty() ? std::optional(Severity::warning) : std::nullopt);
  }
}

}  // namespace wc
