#include "rules/release/regressions.h"

#include <algorithm>

#include "binary/binary_facts.h"
#include "binary/mangled.h"
#include "rules/loader/torch_abi.h"
#include "rules/supply_chain/sbom_rules.h"
#include "util/parse.h"
#include "util/strings.h"
#include "wheel/entry_names.h"
#include "wheel/filename.h"
#include "wheel/requirement.h"
#include "wheel/version.h"

namespace wc {
namespace {

// Architectures NVIDIA has shipped (the devices WC710 reasons about).
constexpr int kDevices[] = {50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 88, 89, 90, 100, 101, 103, 110, 120, 121};

Added added_removed(const std::vector<std::string>& before, const std::vector<std::string>& now) {
  Added a;
  std::set<std::string> b(before.begin(), before.end()), n(now.begin(), now.end());
  std::set_difference(n.begin(), n.end(), b.begin(), b.end(), std::back_inserter(a.added));
  std::set_difference(b.begin(), b.end(), n.begin(), n.end(), std::back_inserter(a.removed));
  return a;
}

std::string leaf(const std::string& p) { return std::string(last_component(p)); }
std::string folder(const std::string& p) { return p.substr(0, p.size() - leaf(p).size()); }

// A library's name without what changes between builds: the graft hash (without_graft_hash), the
// .so.N / .N.dylib version, the CPython or abi3 suffix (_x.cpython-312-x86_64-linux-gnu.so -> _x.so).
std::string stem(const std::string& file) {
  const std::string name = without_graft_hash(file).first;
  for (std::string_view ext : {".so", ".dylib", ".pyd", ".dll"}) {
    auto at = name.find(ext);
    if (at == std::string::npos) continue;
    std::string_view base = std::string_view(name).substr(0, at);
    return std::string(base.substr(0, base.find('.'))) + std::string(ext);  // libjpeg.8.2.2, _x.cpython-312
  }
  return name;
}

bool bundled(const std::string& path) {
  return path.find(".libs/") != std::string::npos || path.find(".dylibs/") != std::string::npos;
}

// The lowest Python a Requires-Python admits (of 2.7 and 3.0 ... 3.40); "" when none or unparsable.
std::string lowest_python(const std::string& spec) {
  if (spec.empty()) return "";
  auto s = SpecifierSet::parse(spec);
  if (!s) return "";
  std::vector<std::string> candidates{"2.7"};
  for (int m = 0; m <= 40; ++m) candidates.push_back("3." + std::to_string(m));
  for (const auto& c : candidates)
    if (auto v = parse_version(c); v && s->contains(*v)) return c;
  return "";
}

std::map<std::string, std::string> requirements_by_name(const std::vector<std::string>& lines) {
  std::map<std::string, std::string> out;
  for (const auto& l : lines)
    if (auto r = parse_requirement(l)) {
      std::string key = r->canonical_name + (r->marker_text.empty() ? "" : "; " + r->marker_text);
      out[key] = r->specifier;  // shown as "name spec; marker" by shown_requirement
    }
  return out;
}

struct Floor {
  std::string family;
  int major = 0, minor = 0;
};
// The lowest floor of each family the tags name: manylinux/musllinux glibc or musl, macOS.
std::map<std::string, Floor> tag_floors(const std::vector<std::string>& tags) {
  std::map<std::string, Floor> out;
  for (const auto& t : tags) {
    PlatformTag p = classify_platform(to_lower(t));
    if (p.family != PlatformFamily::manylinux && p.family != PlatformFamily::musllinux &&
        p.family != PlatformFamily::macos)
      continue;
    std::string fam = family_name(p.family);
    auto it = out.find(fam);
    if (it == out.end() || std::make_pair(p.major, p.minor) < std::make_pair(it->second.major, it->second.minor))
      out[fam] = {fam, p.major, p.minor};
  }
  return out;
}

std::string shown_names(const std::vector<std::string>& names, size_t n) {
  std::vector<std::string> out;
  for (size_t i = 0; i < names.size() && i < n; ++i) {
    std::string_view raw = names[i];
    std::string d = demangle_for_display(raw.starts_with("__Z") ? raw.substr(1) : raw);
    out.push_back(d.empty() ? clip_for_display(names[i], 120) : clip_for_display(d, 120));
  }
  return join(out, ", ") + (names.size() > n ? " and " + std::to_string(names.size() - n) + " more" : "");
}

// A policy allow entry covering this finding: its reason, else "".
std::string allowed(const Policy& p, const std::string& rule, const std::string& binary, const std::string& arch) {
  for (const auto& a : p.baseline.allow)
    if (a.rule == rule && (a.binary.empty() || glob_match(a.binary, binary)) && (a.arch.empty() || a.arch == arch))
      return a.reason.empty() ? "allowed by the policy's baseline section" : a.reason;
  return "";
}

void emit(FindingSink& s, const Policy& p, const std::string& rule, const std::string& msg, const std::string& entry,
          const std::string& binary = "", const std::string& arch = "", std::optional<Severity> sev = std::nullopt) {
  if (std::string why = allowed(p, rule, binary, arch); !why.empty())
    s.add_waived(rule, msg, entry, why);
  else
    s.add(rule, msg, entry, std::nullopt, sev);
}

}  // namespace

std::set<int> runnable_devices(const std::vector<std::string>& labels) {
  std::set<int> out;
  for (const auto& l : labels) {  // labels come from a baseline report too: untrusted text
    std::string_view rest = l;
    const bool ptx = consume(rest, "compute_");
    if (!ptx && !consume(rest, "sm_")) continue;
    const char suffix = !rest.empty() && is_alpha(rest.back()) ? rest.back() : 0;
    if (suffix) rest.remove_suffix(1);
    const int sm = parse_small(rest, 10000).value_or(0);
    if (sm <= 0) continue;
    for (int d : kDevices) {
      bool same_major = d / 10 == sm / 10, ok;
      if (suffix == 'a')
        ok = d == sm;
      else if (suffix == 'f' || !ptx)
        ok = same_major && d % 10 >= sm % 10;
      else
        ok = d >= sm;
      if (ok) out.insert(d);
    }
  }
  return out;
}

std::string pairing_key(const SetMember& m) {
  std::vector<std::string> platforms;
  for (const auto& t : m.platform_tags) {
    PlatformTag p = classify_platform(to_lower(t));
    platforms.push_back(p.family == PlatformFamily::other ? t : std::string(family_name(p.family)) + "_" + p.arch);
  }
  std::sort(platforms.begin(), platforms.end());
  platforms.erase(std::unique(platforms.begin(), platforms.end()), platforms.end());
  return m.project + " " + join(m.python_tags, ".") + "-" + join(platforms, ".") + " " +
         (m.variant.empty() ? "(no variant)" : m.variant);
}

namespace {
std::string shown_requirement(const std::string& key, const std::string& spec) {
  auto semi = key.find("; ");
  if (spec.empty()) return key;
  return semi == std::string::npos ? key + " " + spec : key.substr(0, semi) + " " + spec + key.substr(semi);
}
}  // namespace

PairChanges compare_members(const SetMember& before, const SetMember& now) {
  PairChanges c;
  c.before = &before;
  c.now = &now;
  auto tags = [](const SetMember& m) {
    return join(m.python_tags, ".") + "-" + join(m.abi_tags, ".") + "-" + join(m.platform_tags, ".");
  };
  if (tags(before) != tags(now)) c.tags = {tags(before), tags(now)};
  if (before.requires_python != now.requires_python) c.requires_python = {before.requires_python, now.requires_python};
  auto rb = requirements_by_name(before.requires_dist), rn = requirements_by_name(now.requires_dist);
  for (const auto& [name, spec] : rn) {
    auto it = rb.find(name);
    if (it == rb.end())
      c.requires_dist.added.push_back(shown_requirement(name, spec));
    else if (it->second != spec)
      c.requires_dist_changed.push_back(name + ": " + (it->second.empty() ? "(any)" : it->second) + " -> " +
                                        (spec.empty() ? "(any)" : spec));
  }
  for (const auto& [name, spec] : rb)
    if (!rn.count(name)) c.requires_dist.removed.push_back(shown_requirement(name, spec));
  c.entry_points = added_removed(before.entry_points, now.entry_points);
  c.top_level = added_removed(before.top_level, now.top_level);
  if (!before.binaries_known || !now.binaries_known) return c;
  // Binaries: by path, else one stem in one folder, else one base name on both sides.
  std::map<std::string, const BinarySummary*> old_by_path;
  for (const auto& b : before.binaries) old_by_path[b.path] = &b;
  std::set<const BinarySummary*> used;
  std::vector<std::pair<const BinarySummary*, const BinarySummary*>> pairs;
  std::vector<const BinarySummary*> unmatched;
  for (const auto& b : now.binaries) {
    auto it = old_by_path.find(b.path);
    if (it != old_by_path.end()) {
      pairs.push_back({it->second, &b});
      used.insert(it->second);
    } else {
      unmatched.push_back(&b);
    }
  }
  auto unique_match = [&](const BinarySummary& b, bool same_folder) -> const BinarySummary* {
    const BinarySummary* found = nullptr;
    for (const auto& o : before.binaries) {
      if (used.count(&o) || stem(leaf(o.path)) != stem(leaf(b.path))) continue;
      if (same_folder && folder(o.path) != folder(b.path)) continue;
      if (found) return nullptr;  // two candidates: no pairing
      found = &o;
    }
    return found;
  };
  std::vector<const BinarySummary*> added;
  for (const auto* b : unmatched) {
    const BinarySummary* o = unique_match(*b, true);
    if (!o) o = unique_match(*b, false);
    if (!o) {
      added.push_back(b);
      continue;
    }
    used.insert(o);
    pairs.push_back({o, b});
  }
  for (const auto* b : added) c.binaries.added.push_back(b->path);
  for (const auto& o : before.binaries)
    if (!used.count(&o)) c.binaries.removed.push_back(o.path);
  for (const auto& [o, b] : pairs) {
    BinaryChange x;
    x.path = b->path;
    x.old_path = o->path;
    x.matched = o->path == b->path ? "path" : folder(o->path) == folder(b->path) ? "renamed" : "moved";
    x.needed = added_removed(o->needed, b->needed);
    x.sass = added_removed(o->sass, b->sass);
    x.ptx = added_removed(o->ptx, b->ptx);
    for (const auto& [prefix, v] : b->floors)
      if (auto it = o->floors.find(prefix); it != o->floors.end() && it->second != v)
        x.floors[prefix] = {it->second, v};
    if (o->exports_known && b->exports_known) {
      x.exports_compared = true;
      std::set_difference(o->exports.begin(), o->exports.end(), b->exports.begin(), b->exports.end(),
                          std::back_inserter(x.removed_names));
      std::vector<std::string> gained;
      std::set_difference(b->exports.begin(), b->exports.end(), o->exports.begin(), o->exports.end(),
                          std::back_inserter(gained));
      x.exports_added = gained.size();
      const std::string name = leaf(b->path);
      if (name.starts_with("libtorch") || name.starts_with("libc10") || name.starts_with("torch_") ||
          name.starts_with("c10"))
        for (const auto& n : x.removed_names) {
          std::string_view raw = n;
          if (raw.starts_with("__Z")) raw.remove_prefix(1);  // Mach-O's extra underscore
          if (raw.starts_with("aoti_torch_") || raw.starts_with("_aoti_torch_") || raw.starts_with("torch_"))
            ++x.removed_stable;
          else if (unstable_torch_symbol(raw))
            ++x.removed_unstable;
        }
    }
    if (bundled(b->path)) {
      std::string ov = file_name_version(without_graft_hash(leaf(o->path)).first),
                  nv = file_name_version(without_graft_hash(leaf(b->path)).first);
      if (!ov.empty() && !nv.empty() && ov != nv) c.bundled.push_back({stem(leaf(b->path)), {ov, nv}});
    }
    if (!x.empty()) c.changed_binaries.push_back(std::move(x));
  }
  return c;
}

void collect_needed(const std::vector<SetMember>& members, std::set<std::string>& out) {
  for (const auto& m : members)
    for (const auto& b : m.binaries)
      for (const auto& n : b.needed) out.insert(leaf(n));
}

void pair_regressions(const PairChanges& c, const Policy& p, const std::set<std::string>& needed, FindingSink& s) {
  const SetMember& was = *c.before;
  const SetMember& now = *c.now;
  const std::string& entry = now.filename;
  const std::string base = " (baseline " + was.filename + ")";
  // WC712: the tag's floor, Requires-Python.
  auto old_floors = tag_floors(was.platform_tags), new_floors = tag_floors(now.platform_tags);
  for (const auto& [fam, f] : new_floors)
    if (auto it = old_floors.find(fam);
        it != old_floors.end() && std::make_pair(f.major, f.minor) > std::make_pair(it->second.major, it->second.minor))
      emit(s, p, "WC712",
           "platform floor raised: " + join(was.platform_tags, ".") + " -> " + join(now.platform_tags, ".") + " (" +
               fam + " " + std::to_string(it->second.major) + "." + std::to_string(it->second.minor) + " -> " +
               std::to_string(f.major) + "." + std::to_string(f.minor) + "): systems between them lose the wheel" +
               base,
           entry);
  std::string lo = lowest_python(was.requires_python), ln = lowest_python(now.requires_python);
  if (!lo.empty() && !ln.empty() && compare_dotted(ln, lo) > 0)
    emit(s, p, "WC712",
         "Requires-Python raised: '" + was.requires_python + "' -> '" + now.requires_python + "' (Python " + lo +
             " to " + ln + " lose it)" + base,
         entry);
  for (const auto& b : c.changed_binaries) {
    // WC710: the devices that could run this binary's kernels and no longer can.
    const BinarySummary *ob = nullptr, *nb = nullptr;
    for (const auto& x : was.binaries)
      if (x.path == b.old_path) ob = &x;
    for (const auto& x : now.binaries)
      if (x.path == b.path) nb = &x;
    if (ob && nb && (!b.sass.removed.empty() || !b.ptx.removed.empty())) {
      std::vector<std::string> o = ob->sass, n = nb->sass;
      o.insert(o.end(), ob->ptx.begin(), ob->ptx.end());
      n.insert(n.end(), nb->ptx.begin(), nb->ptx.end());
      std::set<int> ran = runnable_devices(o), runs = runnable_devices(n);
      std::vector<std::string> lost;
      for (int d : ran)
        if (!runs.count(d)) lost.push_back("sm_" + std::to_string(d));
      std::vector<std::string> removed = b.sass.removed;
      removed.insert(removed.end(), b.ptx.removed.begin(), b.ptx.removed.end());
      if (!lost.empty()) {
        bool all_allowed = std::all_of(lost.begin(), lost.end(),
                                       [&](const std::string& d) { return !allowed(p, "WC710", b.path, d).empty(); });
        std::string msg = "GPU code dropped: " + join(removed, ", ") + " removed, so " + join(lost, ", ") +
                          " can no longer run its kernels (no SASS for them, no PTX at or below them)" + base;
        if (all_allowed)
          s.add_waived("WC710", msg, b.path, allowed(p, "WC710", b.path, lost.front()));
        else
          s.add("WC710", msg, b.path);
      }
    }
    // WC711: exports removed.
    if (!b.removed_names.empty()) {
      std::string name = leaf(b.path);
      std::string soname = nb ? leaf(nb->soname) : "";
      bool is_public = glob_any(p.baseline.public_libraries, name) || needed.count(name) ||
                       (!soname.empty() && needed.count(soname)) || needed.count(leaf(b.old_path));
      emit(s, p, "WC711",
           std::to_string(b.removed_names.size()) + " exported name" + (b.removed_names.size() == 1 ? "" : "s") +
               " removed: " + shown_names(b.removed_names, 5) +
               (b.removed_stable ? "; " + std::to_string(b.removed_stable) +
                                       " of them stable C shims (stable-ABI extensions break too)"
                                 : "") +
               (is_public ? "; other wheels link against this library, and their import fails with \"undefined "
                            "symbol\""
                          : "") +
               base,
           b.path, b.path, "", is_public ? std::nullopt : std::optional(Severity::warning));
    }
    // WC712: symbol-version and minos floors.
    for (const auto& [prefix, v] : b.floors) {
      if (compare_dotted(v.second, v.first) <= 0) continue;
      bool within_tag = false;
      if (prefix == "GLIBC")
        if (auto it = new_floors.find("manylinux"); it != new_floors.end())
          within_tag =
              compare_dotted(v.second, std::to_string(it->second.major) + "." + std::to_string(it->second.minor)) <= 0;
      if (prefix == "macos")
        if (auto it = new_floors.find("macos"); it != new_floors.end())
          within_tag =
              compare_dotted(v.second, std::to_string(it->second.major) + "." + std::to_string(it->second.minor)) <= 0;
      bool soft = within_tag || (prefix != "GLIBC" && prefix != "macos");
      emit(s, p, "WC712",
           (prefix == "macos" ? "macOS minos" : prefix + " floor") + " raised: " + v.first + " -> " + v.second +
               (within_tag ? " (the platform tag allows it)" : "") + base,
           b.path, b.path, "", soft ? std::optional(Severity::warning) : std::nullopt);
    }
  }
  // WC714: dependencies.
  if (!c.requires_dist.empty() || !c.requires_dist_changed.empty()) {
    std::vector<std::string> parts;
    if (!c.requires_dist.added.empty()) parts.push_back("added " + join(c.requires_dist.added, ", "));
    if (!c.requires_dist.removed.empty()) parts.push_back("removed " + join(c.requires_dist.removed, ", "));
    if (!c.requires_dist_changed.empty()) parts.push_back("changed " + join(c.requires_dist_changed, ", "));
    emit(s, p, "WC714", "Requires-Dist " + join(parts, "; ") + base, entry);
  }
  // WC715: what users call or import, removed.
  if (!c.entry_points.removed.empty())
    emit(s, p, "WC715", "entry points removed: " + join(c.entry_points.removed, ", ") + base, entry);
  if (!c.top_level.removed.empty())
    emit(s, p, "WC715", "top-level import names removed: " + join(c.top_level.removed, ", ") + base, entry);
  // WC716: bundled libraries whose version went down.
  for (const auto& [lib, v] : c.bundled)
    if (compare_dotted(v.second, v.first) < 0)
      emit(s, p, "WC716", "bundled " + lib + " downgraded: " + v.first + " -> " + v.second + base, entry);
}

void matrix_regressions(const std::vector<const SetMember*>& now, const std::vector<SetMember>& baseline,
                        FindingSink& s) {
  std::set<std::string> projects, keys;
  for (const auto* m : now) projects.insert(m->project), keys.insert(pairing_key(*m));
  std::set<std::string> said;
  for (const auto& b : baseline) {
    if (!projects.count(b.project) || keys.count(pairing_key(b)) || !said.insert(pairing_key(b)).second) continue;
    s.add("WC713",
          "the release matrix shrank: " + b.project + " " + join(b.python_tags, ".") + "-" + join(b.abi_tags, ".") +
              "-" + join(b.platform_tags, ".") + (b.variant.empty() ? "" : " (" + b.variant + ")") +
              " shipped in the baseline (" + b.filename + ") and has no wheel now",
          b.filename);
  }
}

}  // namespace wc
