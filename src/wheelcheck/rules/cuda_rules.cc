// WC204, WC601-WC605: the CUDA variant a wheel claims against what it links, pins and carries.
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
      s.add("WC601", "CPU variant (" + v.source + ") links the CUDA " + std::to_string(l.major) + " runtime " + l.soname, l.binary);
    if (c.any_gpu_code) s.add("WC601", "CPU variant (" + v.source + ") carries GPU code (fatbins)");
    return;
  }
  for (const auto& l : c.links)
    if (l.major != v.major)
      s.add("WC601", "variant " + v.name + " (" + v.source + ") is CUDA " + v.version() + ", but the binary links " + l.soname +
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
      s.add("WC601", "GPU code built by CUDA " + t.version + " (the toolkit note in its cubins/PTX), but the variant " + v.name + " (" + v.source +
                         ") is CUDA " + v.version(),
            t.binary);
  }
  if (c.version_file_value && v.source != "version file") {
    auto fv = split(*c.version_file_value, '.');
    if (fv.size() < 2 || std::string(fv[0]) != std::to_string(v.major) || std::string(fv[1]) != std::to_string(v.minor))
      s.add("WC601", "the version file says CUDA " + *c.version_file_value + ", the variant (" + v.source + ") says " + v.version());
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
        s.add("WC601", "PTX ISA " + isa + " in " + e.name() + " is newer than the CUDA " + v.version() + " toolkit of variant " +
                           v.name + " emits (" + max_isa + "): built with a newer toolkit than the label says",
              b.path);
    }
  }
}

void targetable(const WheelFacts& f, const CudaVariant& v, const CudaPolicy& cuda, const CudaVariantInfo* var, FindingSink& s) {
  bool allow_specific = cuda.allow_arch_specific;
  for (const auto& b : f.binaries) {
    std::set<std::string> seen;
    for (const auto& e : b.fatbin.entries) {
      std::string name = e.name();
      if (!seen.insert(name).second) continue;
      if (!e.suffix.empty() && !allow_specific)
        s.add("WC604", name + " is an " + std::string(e.suffix == "a" ? "architecture-specific" : "family-specific") +
                           " target; the policy forbids them (they run on one GPU generation only)",
              b.path);
      if (!var) continue;
      int sm = static_cast<int>(e.sm);
      if (!var->sm.count(sm))
        s.add("WC604", name + " is not a target the CUDA " + v.version() + " toolkit of variant " + v.name + " can build", b.path);
      else if (e.suffix == "a" && !var->arch_specific.count(sm))
        s.add("WC604", name + ": CUDA " + v.version() + " has no architecture-specific target for sm_" + std::to_string(e.sm), b.path);
      else if (e.suffix == "f" && !var->family.count(sm))
        s.add("WC604", name + ": CUDA " + v.version() + " has no family target for sm_" + std::to_string(e.sm), b.path);
    }
  }
}

// Required SASS / PTX for the variant (policy "require"), per wheel or per GPU-carrying binary.
void required_arches(const WheelFacts& f, const CudaVariant& v, const CudaPolicy& cuda, FindingSink& s) {
  auto it = cuda.require.find(v.name + "-" + wheel_arch(f));
  if (it == cuda.require.end()) it = cuda.require.find(v.name);
  if (it == cuda.require.end()) return;
  const CudaRequirement* r = &it->second;
  auto check = [&](const std::vector<std::string>& sass, const std::vector<std::string>& ptx, const std::string& entry) {
    auto has = [](const std::vector<std::string>& have, const std::string& want) {
      // sm_90a / sm_100f code also runs on the SM it names, so it satisfies that requirement.
      return std::any_of(have.begin(), have.end(), [&](const std::string& h) {
        return h == want || (h.size() == want.size() + 1 && h.compare(0, want.size(), want) == 0);
      });
    };
    for (const auto& want : r->sass)
      if (!has(sass, want)) s.add("WC602", "no SASS for " + want + " (variant " + v.name + " requires it)", entry);
    for (const auto& want : r->ptx)
      if (!has(ptx, want)) s.add("WC603", "no PTX " + want + " for forward compatibility (variant " + v.name + " requires it)", entry);
  };
  if (cuda.require_scope != RequireScope::wheel) {
    for (const auto& b : f.binaries)
      if (!b.fatbin.empty()) check(b.fatbin.sass(), b.fatbin.ptx(), b.path);
    return;
  }
  std::set<std::string> sass, ptx;
  for (const auto& b : f.binaries) {
    for (const auto& x : b.fatbin.sass()) sass.insert(x);
    for (const auto& x : b.fatbin.ptx()) ptx.insert(x);
  }
  check({sass.begin(), sass.end()}, {ptx.begin(), ptx.end()}, "");
}

void bundled_libraries(const WheelFacts& f, const CudaPolicy& cuda, FindingSink& s) {
  const auto& globs = cuda.expect_from_dependencies;
  if (globs.empty()) return;
  for (const auto& e : f.entries) {
    std::string base = e.name.substr(e.name.rfind('/') == std::string::npos ? 0 : e.name.rfind('/') + 1);
    for (const auto& g : globs)
      if (glob_match(g, base)) {
        s.add("WC605", "bundles " + base + ", which the policy expects from an nvidia-* dependency wheel", e.name);
        break;
      }
  }
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
      s.add("WC204", "Requires-Dist '" + p.requirement + "' is a CUDA " + std::to_string(p.major) + " package; variant " +
                         c.variant->name + " is CUDA " + c.variant->version(),
            f.dist_info + "/METADATA");
  if (c.variant->cpu()) return;
  auto info = cuda.variants.find(c.variant->name);
  const CudaVariantInfo* var = info == cuda.variants.end() ? nullptr : &info->second;
  if (var) ptx_isa_check(f, *c.variant, *var, s);
  targetable(f, *c.variant, cuda, var, s);
  required_arches(f, *c.variant, cuda, s);
}

}  // namespace wc
