// WC515: PyTorch's ABI against the torch requirement. torch's C++ ABI (c10::, at::, torch::) changes
// every minor release, so an extension on it works with the one minor release it was built
// against: its requirement must admit no other. An extension on the stable ABI works with every
// torch that has the shims it calls: its requirement must admit none older than the newest one
// (policies/torch_stable_abi.json, generated from torch's headers).
#include <algorithm>

#include "binary/binary_facts.h"
#include "binary/mangled.h"
#include "rules/rules.h"
#include "rules/torch_abi.h"
#include "util/parse.h"
#include "util/strings.h"
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

bool links_torch(const BinaryFacts& b) {
  return std::any_of(b.needed.begin(), b.needed.end(), [](const std::string& n) {
    return (n.starts_with("libtorch") || n.starts_with("libc10")) && n.find(".so") != std::string::npos;
  });
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
  if (b.format != "elf" || !b.undefined_symbols_read || !links_torch(b)) return t;
  t.links_torch = true;
  for (const auto& sym : b.undefined_symbols) {
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
    } else if (unstable_torch_symbol(sym)) {
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

}  // namespace

void torch_abi_rules(const WheelFacts& f, const InstallSet&, FindingSink& s) {
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
      s.add("WC515",
            "uses torch's unstable C++ ABI (" + std::to_string(t.unstable) + " symbol" + (t.unstable == 1 ? "" : "s") +
                ", first " + clip_for_display(t.first_unstable, 120) + (d.empty() ? "" : " (" + d + ")") +
                "), which holds within one minor release, but " + required +
                (req->lines.empty() ? "" : " " + req->admitted.describe()) +
                ": pin the release it was built against (torch==X.Y.*)",
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
