// WC204, WC601-WC605: the CUDA variant a wheel claims against what it links, pins and carries.
#include <map>
#include <set>

#include "binary/binary_facts.h"
#include "facts/cuda_facts.h"
#include "rules/rules.h"
#include "util/parse.h"
#include "util/strings.h"

namespace wc {
namespace {

std::string wheel_arch(const WheelFacts& f) {
  for (const auto& t : f.filename.platform_tags) {
    PlatformTag p = classify_platform(to_lower(t));
    if (!p.arch.empty()) return p.arch;
  }
  return "";
}

void variant_consistency(const CudaFacts& c, FindingSink& s) {
  const CudaVariant& v = *c.variant;
  if (v.cpu()) {
    for (const auto& l : c.links)
      s.add("WC601",
            "CPU variant (" + v.source + ") links the CUDA " + std::to_string(l.major) + " runtime " + l.soname,
            l.binary);
    if (c.any_gpu_code) s.add("WC601", "CPU variant (" + v.source + ") carries GPU code (fatbins)");
    return;
  }
  for (const auto& l : c.links)
    if (l.major != v.major)
      s.add("WC601",
            "variant " + v.name + " (" + v.source + ") is CUDA " + v.version() + ", but the binary links " + l.soname +
                " from CUDA " + std::to_string(l.major),
            l.binary);
  // Compiled by a newer toolkit than the label (or another major): its runtime needs that driver.
  for (const auto& t : c.toolkits) {
    auto parts = split(t.version, '.');
    if (parts.size() < 2) continue;
    auto pma = parse_small(parts[0], 999), pmi = parse_small(parts[1], 999);
    if (!pma || !pmi) continue;
    int ma = *pma, mi = *pmi;
    if (ma != v.major || mi > v.minor)
      s.add("WC601",
            "GPU code built by CUDA " + t.version + " (the toolkit note in its cubins/PTX), but the variant " + v.name +
                " (" + v.source + ") is CUDA " + v.version(),
            t.binary);
  }
  if (c.version_file_value && v.source != "version file") {
    auto fv = split(*c.version_file_value, '.');
    if (fv.size() < 2 || std::string(fv[0]) != std::to_string(v.major) || std::string(fv[1]) != std::to_string(v.minor))
      s.add("WC601", "the version file says CUDA " + *c.version_file_value + ", the variant (" + v.source + ") says " +
                         v.version());
  }
}

void ptx_isa_check(const WheelFacts& f, const CudaVariant& v, const CudaVariantInfo& info, FindingSink& s) {
  if (info.max_ptx_isa.empty()) return;
  const std::string& max_isa = info.max_ptx_isa;
  for (const auto& b : f.binaries) {
    std::set<std::string> reported;
    for (const auto& e : b.fatbin.entries) {
      if (e.kind != FatbinEntry::ptx) continue;
      std::string isa = std::to_string(e.version_major) + "." + std::to_string(e.version_minor);
      if (compare_dotted(isa, max_isa) > 0 && reported.insert(isa).second)
        s.add("WC601",
              "PTX ISA " + isa + " in " + e.name() + " is newer than the CUDA " + v.version() + " toolkit of variant " +
                  v.name + " emits (" + max_isa + "): built with a newer toolkit than the label says",
              b.path);
    }
  }
}

void targetable(const WheelFacts& f, const CudaVariant& v, const CudaPolicy& cuda, const CudaVariantInfo* var,
                FindingSink& s) {
  bool allow_specific = cuda.allow_arch_specific;
  for (const auto& b : f.binaries) {
    std::set<std::string> seen;
    for (const auto& e : b.fatbin.entries) {
      std::string name = e.name();
      if (!seen.insert(name).second) continue;
      if (!e.suffix.empty() && !allow_specific)
        s.add("WC604",
              name + " is an " + std::string(e.suffix == "a" ? "architecture-specific" : "family-specific") +
                  " target; the policy forbids them (they run on one GPU generation only)",
              b.path);
      if (!var) continue;
      int sm = static_cast<int>(e.sm);
      if (!var->sm.count(sm))
        s.add("WC604",
              name + " is not a target the CUDA " + v.version() + " toolkit of variant " + v.name + " can build",
              b.path);
      else if (e.suffix == "a" && !var->arch_specific.count(sm))
        s.add("WC604",
              name + ": CUDA " + v.version() + " has no architecture-specific target for sm_" + std::to_string(e.sm),
              b.path);
      else if (e.suffix == "f" && !var->family.count(sm))
        s.add("WC604", name + ": CUDA " + v.version() + " has no family target for sm_" + std::to_string(e.sm), b.path);
    }
  }
}

// sm_90a / sm_100f code also runs on the SM it names, so it satisfies a requirement for it.
bool satisfies(const FatbinEntry& e, FatbinEntry::Kind kind, const std::string& want) {
  if (e.kind != kind) return false;
  std::string have = e.name();
  return have == want || (have.size() == want.size() + 1 && have.compare(0, want.size(), want) == 0);
}

std::string arch_list(const std::set<std::string>& names) {
  return names.empty() ? "nothing" : join(sorted_arch_names({names.begin(), names.end()}), " ");
}

// Containers (one translation unit's kernels each) of `b` without an entry satisfying `want`,
// and the architectures those containers do carry.
std::pair<size_t, std::set<std::string>> containers_without(const BinaryFacts& b, FatbinEntry::Kind kind,
                                                            const std::string& want) {
  std::vector<bool> ok(b.fatbin.container_ranges.size(), false);
  std::map<size_t, std::set<std::string>> have;
  for (const auto& e : b.fatbin.entries) {
    if (e.container >= ok.size()) continue;
    have[e.container].insert(e.name());
    if (satisfies(e, kind, want)) ok[e.container] = true;
  }
  std::pair<size_t, std::set<std::string>> out{0, {}};
  for (size_t c = 0; c < ok.size(); ++c)
    if (!ok[c] && b.fatbin.container_has_code(c)) ++out.first, out.second.insert(have[c].begin(), have[c].end());
  return out;
}

// Required SASS / PTX for the variant (policy "require"). Missing from the whole wheel (scope
// wheel), from a GPU-carrying binary (scope binary) or from a container (scope container) is an
// error at that scope. Below it, a gap is reported as partial coverage, a warning that names the
// library, how many containers cannot run there and what they carry (e.g. a vendored library built
// for fewer architectures: its kernels fail on that GPU with "no kernel image").
void required_arches(const WheelFacts& f, const CudaVariant& v, const CudaPolicy& cuda, FindingSink& s) {
  auto it = cuda.require.find(v.name + "-" + wheel_arch(f));
  if (it == cuda.require.end()) it = cuda.require.find(v.name);
  if (it == cuda.require.end()) return;
  const CudaRequirement& r = it->second;
  std::vector<const BinaryFacts*> gpu;
  for (const auto& b : f.binaries)
    if (!b.fatbin.empty()) gpu.push_back(&b);
  auto check = [&](FatbinEntry::Kind kind, const std::string& want, const char* rule, const std::string& what) {
    bool anywhere = false;
    for (const auto* b : gpu)
      for (const auto& e : b->fatbin.entries) anywhere |= satisfies(e, kind, want);
    if (!anywhere) {
      s.add(rule, "no " + what + " " + want + " in any binary (variant " + v.name + " requires it)");
      return;
    }
    for (const auto* b : gpu) {
      auto [n, archs] = containers_without(*b, kind, want);
      if (n == 0) continue;
      size_t total = 0;
      for (size_t c = 0; c < b->fatbin.container_ranges.size(); ++c) total += b->fatbin.container_has_code(c);
      bool whole_binary = n == total;
      bool error =
          cuda.require_scope == RequireScope::container || (whole_binary && cuda.require_scope == RequireScope::binary);
      s.add(rule,
            std::to_string(n) + " of " + std::to_string(total) + " fatbin container" + (total == 1 ? "" : "s") +
                " carry no " + what + " " + want + " (they have " + arch_list(archs) + "); variant " + v.name +
                " requires it, so their kernels have no image " +
                (kind == FatbinEntry::sass ? "for that GPU" : "to JIT on newer GPUs"),
            b->path, std::nullopt, error ? Severity::error : Severity::warning);
    }
  };
  for (const auto& want : r.sass) check(FatbinEntry::sass, want, "WC602", "SASS for");
  for (const auto& want : r.ptx) check(FatbinEntry::ptx, want, "WC603", "PTX");
}

// A variant the policy has no facts for (cuda.variants), or, when the policy states requirements,
// none for: nothing CUDA-specific can be checked, and that must be said.
void unknown_variant(const WheelFacts& f, const CudaVariant& v, const CudaPolicy& cuda, FindingSink& s) {
  if (!cuda.variants.count(v.name)) {
    std::vector<std::string> known;
    for (const auto& [name, _] : cuda.variants) known.push_back(name);
    s.add("WC606", "CUDA variant " + v.name + " (" + v.source + ") is not in the policy's variant table (" +
                       join(known, ", ") + "): targets, PTX ISA and requirements go unchecked");
    return;
  }
  if (!cuda.require.empty() && !cuda.require.count(v.name + "-" + wheel_arch(f)) && !cuda.require.count(v.name))
    s.add("WC606", "the policy states architecture requirements for other variants but none for " + v.name + " (" +
                       v.source + ")");
}

// CUDA libraries the policy expects from dependency wheels, shipped inside this one. A wheel that
// is itself the provider (nvidia-cublas ships libcublas) is not bundling. One finding per wheel.
void bundled_libraries(const WheelFacts& f, const CudaPolicy& cuda, FindingSink& s) {
  if (cuda.expect_from_dependencies.empty() || !f.filename.valid) return;
  const std::vector<std::string> own = cuda.provided_by(f.filename.canonical_name);  // by the providers table
  std::vector<std::string> bundled;
  for (const auto& e : f.entries) {
    std::string base = e.name.substr(e.name.rfind('/') == std::string::npos ? 0 : e.name.rfind('/') + 1);
    if (glob_any(cuda.expect_from_dependencies, base) && !glob_any(own, base)) bundled.push_back(e.name);
  }
  if (bundled.empty()) return;
  std::vector<std::string> shown(bundled.begin(), bundled.begin() + std::min<size_t>(bundled.size(), 5));
  s.add("WC605",
        "bundles " + std::to_string(bundled.size()) + " CUDA librar" + (bundled.size() == 1 ? "y" : "ies") +
            " the policy expects from nvidia-* dependency wheels: " + join(shown, ", ") +
            (bundled.size() > shown.size() ? " and " + std::to_string(bundled.size() - shown.size()) + " more" : ""),
        bundled.size() == 1 ? bundled[0] : "");
}

}  // namespace

void cuda_rules(const WheelFacts& f, FindingSink& s) {
  const CudaPolicy& cuda = s.policy().cuda;
  CudaFacts c = derive_cuda_facts(f, cuda);
  bundled_libraries(f, cuda, s);
  if (!c.variant) return;
  variant_consistency(c, s);
  for (const auto& p : c.pins)
    if (!c.variant->cpu() && p.major != c.variant->major)
      s.add("WC204",
            "Requires-Dist '" + p.requirement + "' is a CUDA " + std::to_string(p.major) + " package; variant " +
                c.variant->name + " is CUDA " + c.variant->version(),
            f.dist_info + "/METADATA");
  if (c.variant->cpu()) return;
  unknown_variant(f, *c.variant, cuda, s);
  auto info = cuda.variants.find(c.variant->name);
  const CudaVariantInfo* var = info == cuda.variants.end() ? nullptr : &info->second;
  if (f.metadata_depth) return;  // the fatbins were not read: coverage is unknown, not missing
  if (var) ptx_isa_check(f, *c.variant, *var, s);
  targetable(f, *c.variant, cuda, var, s);
  required_arches(f, *c.variant, cuda, s);
}

}  // namespace wc
