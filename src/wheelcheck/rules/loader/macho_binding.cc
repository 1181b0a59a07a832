#include "rules/loader/macho_binding.h"

#include <algorithm>
#include <optional>
#include <set>

#include "binary/mangled.h"
#include "rules/loader/dylib_resolution.h"
#include "rules/loader/resolution.h"
#include "rules/rules.h"
#include "util/strings.h"
#include "wheel/entry_names.h"

namespace wc {
namespace {

constexpr size_t kShown = 3;

std::string label(const WheelFacts* w) {
  return w && w->filename.valid ? w->filename.name + " " + w->filename.version_text : "";
}

const MachOSlice* slice_of(const BinaryFacts& b, const std::string& arch) {
  for (const auto& s : b.slices)
    if (s.arch == arch) return &s;
  return nullptr;
}

bool ios_wheel(const WheelFacts& f) {
  return std::any_of(f.filename.platform_tags.begin(), f.filename.platform_tags.end(),
                     [](const std::string& t) { return classify_platform(to_lower(t)).family == PlatformFamily::ios; });
}

struct SliceResult {
  size_t imports = 0, unbound = 0;
  std::vector<std::string> shown;
  std::map<std::string, size_t> bound, trusted;
};

class Binder {
 public:
  Binder(const WheelFacts& f, const BinaryFacts& b, const MachOSlice& sl, const InstallSet& set, const Policy& p)
      : f_(f), b_(b), sl_(sl), set_(set), p_(p), ios_(ios_wheel(f)) {}

  SliceResult run() {
    SliceResult r;
    std::vector<DylibFound> images;
    for (const auto& d : sl_.dylibs) images.push_back(find_dylib(f_, b_, sl_, d, set_, p_, ios_));
    for (const auto& imp : sl_.imports) {
      ++r.imports;
      if (imp.weak) {
        ++r.trusted["weak imports (dyld binds a missing one to null)"];
        continue;
      }
      if (imp.ordinal > 0) {
        const DylibFound& img = images[imp.ordinal - 1];
        const MachOSlice* target = img.binary ? slice_of(*img.binary, sl_.arch) : nullptr;
        if (img.where == DylibFound::Where::system) {
          ++r.trusted["a system dylib defines it (" + std::string(last_component(sl_.dylibs[imp.ordinal - 1])) + ")"];
        } else if (!target || !target->exports_read) {
          ++r.trusted[img.where == DylibFound::Where::nowhere ? "its dylib is found nowhere (WC503)"
                                                              : "its image's exports were not read"];
        } else if (exports(*img.wheel, *img.binary, *target, imp.name, 0)) {
          ++r.bound[install_path(img.binary->path) + (img.wheel != &f_ ? " (" + label(img.wheel) + ")" : "")];
        } else {
          miss(r, imp.name,
               "expected in " + sl_.dylibs[imp.ordinal - 1] + ", found as " + install_path(img.binary->path) +
                   (img.wheel != &f_ ? " from " + label(img.wheel) : ""));
        }
      } else if (imp.ordinal == MachOImport::flat_lookup) {
        flat(r, imp.name);
      } else {
        ++r.trusted[imp.ordinal == MachOImport::main_executable ? "the main executable (the interpreter) defines it"
                                                                : "the image itself or a weak definition"];
      }
    }
    return r;
  }

 private:
  void miss(SliceResult& r, const std::string& raw, const std::string& where) {
    ++r.unbound;
    if (r.shown.size() >= kShown) return;
    std::string_view name = macho_c_name(raw);
    std::string d = demangle_for_display(name);
    r.shown.push_back(clip_for_display(raw, 160) + (d.empty() ? "" : " (" + clip_for_display(d, 160) + ")") + ", " +
                      where);
  }

  // Whether `image` (slice `sl` of binary `b` of wheel `w`) exports `name`, itself or through the
  // dylibs it re-exports. A re-exported dylib of the system, or one not found, is taken on trust.
  bool exports(const WheelFacts& w, const BinaryFacts& b, const MachOSlice& sl, const std::string& name, int depth) {
    if (sl.exports_name(name)) return true;
    if (depth >= 8) return false;
    for (const auto& r : sl.reexported_dylibs) {
      DylibFound found = find_dylib(w, b, sl, r, set_, p_, ios_);
      const MachOSlice* next = found.binary ? slice_of(*found.binary, sl.arch) : nullptr;
      if (!next || !next->exports_read) return true;
      if (exports(*found.wheel, *found.binary, *next, name, depth + 1)) return true;
    }
    return false;
  }

  // The images a flat lookup searches: this binary, what its slice loads from the run, and every
  // image of a project whose import loads its libraries (torch).
  const std::vector<const MachOSlice*>& process() {
    if (process_) return *process_;
    process_.emplace();
    auto add = [&](const BinaryFacts& b) {
      if (const MachOSlice* s = slice_of(b, sl_.arch); s && s->exports_read) process_->push_back(s);
    };
    add(b_);
    for (const auto& d : sl_.dylibs)
      if (auto found = find_dylib(f_, b_, sl_, d, set_, p_, ios_); found.binary) add(*found.binary);
    for (const auto* w : set_.wheels)
      if (import_loaded(*w, p_.cuda))
        for (const auto& other : w->binaries)
          if (other.format == "macho") add(other);
    for (const auto* s : *process_)
      for (auto& ns : s->export_namespaces()) namespaces_.emplace(std::move(ns));
    return *process_;
  }

  void flat(SliceResult& r, const std::string& raw) {
    std::string_view name = macho_c_name(raw);
    if (name.starts_with("Py") || name.starts_with("_Py")) {
      ++r.trusted["the Python C API (the interpreter defines it)"];
      return;
    }
    for (const auto* s : process())
      if (s->exports_name(raw)) {
        ++r.trusted["flat lookup, defined by an image of the process"];
        return;
      }
    auto ns = name.starts_with("_Z") ? classify_mangled(name).namespaces : std::vector<std::string_view>{};
    if (!ns.empty() && namespaces_.count(ns.front())) {
      miss(r, raw,
           "a flat lookup no image of the process answers (they define " + std::string(ns.front()) + "::, not this)");
      return;
    }
    ++r.trusted["flat lookup a system library may answer"];
  }

  const WheelFacts& f_;
  const BinaryFacts& b_;
  const MachOSlice& sl_;
  const InstallSet& set_;
  const Policy& p_;
  bool ios_;
  std::optional<std::vector<const MachOSlice*>> process_;
  std::set<std::string, std::less<>> namespaces_;
};

bool judgeable(const BinaryFacts& b) { return b.format == "macho" && !b.headers_only && b.errors.empty(); }

}  // namespace

void macho_binds(const WheelFacts& f, const InstallSet& set, FindingSink& s) {
  for (const auto& b : f.binaries) {
    if (!judgeable(b)) continue;
    for (const auto& sl : b.slices) {
      if (!sl.imports_read) continue;
      SliceResult r = Binder(f, b, sl, set, s.policy()).run();
      if (!r.unbound) continue;
      s.add("WC514",
            sl.arch + " slice: " + std::to_string(r.unbound) + " symbol" + (r.unbound == 1 ? "" : "s") +
                " dyld binds to no image: " + join(r.shown, "; ") +
                (r.unbound > r.shown.size() ? "; and " + std::to_string(r.unbound - r.shown.size()) + " more" : "") +
                ": dyld refuses the load (\"Symbol not found\"; Python's import binds every symbol at once)",
            b.path);
    }
  }
}

std::vector<SymbolBinding> macho_symbol_bindings(const WheelFacts& f, const InstallSet& set, const Policy& p) {
  std::vector<SymbolBinding> out;
  for (const auto& b : f.binaries) {
    if (b.format != "macho" || b.headers_only) continue;
    SymbolBinding sb;
    sb.binary = b.path;
    if (!b.errors.empty()) sb.not_judged = "it could not be parsed (WC508)";
    std::map<std::string, size_t> bound, trusted;
    for (const auto& sl : b.slices) {
      if (!sb.not_judged.empty()) break;
      if (!sl.imports_read) {
        sb.not_judged = sl.arch + " slice's binds were not read";
        break;
      }
      SliceResult r = Binder(f, b, sl, set, p).run();
      sb.undefined += r.imports, sb.unbound += r.unbound;
      for (const auto& [k, n] : r.bound) bound[b.slices.size() > 1 ? sl.arch + ": " + k : k] += n;
      for (const auto& [k, n] : r.trusted) trusted[b.slices.size() > 1 ? sl.arch + ": " + k : k] += n;
    }
    sb.bound.assign(bound.begin(), bound.end());
    sb.trusted.assign(trusted.begin(), trusted.end());
    for (auto* v : {&sb.bound, &sb.trusted})
      std::stable_sort(v->begin(), v->end(), [](const auto& a, const auto& c) { return a.second > c.second; });
    out.push_back(std::move(sb));
  }
  return out;
}

}  // namespace wc
