// WC204, WC601-WC605: the CUDA variant a wheel claims against what it links, pins and carries.
#include <set>

#include "binary/binary_facts.h"
#include "facts/cuda_facts.h"
#include "rules/rules.h"
#include "util/parse.h"
#include "util/strings.h"

namespace wc {
namespace {

using nlohmann::json;

bool contains_int(const json& arr, int v) {
  if (!arr.is_array()) return false;
  for (const auto& x : arr)
    if (x.get<int>() == v) return true;
  return false;
}

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

void ptx_isa_check(const WheelFacts& f, const CudaVariant& v, const json& variants, FindingSink& s) {
  if (!variants.contains(v.name) || !variants[v.name].contains("max_ptx_isa")) return;
  std::string max_isa = variants[v.name]["max_ptx_isa"];
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

void targetable(const WheelFacts& f, const CudaVariant& v, const json& cuda, FindingSink& s) {
  const json& variants = cuda.value("variants", json::object());
  bool allow_specific = cuda.value("allow_arch_specific", true);
  const json* var = variants.contains(v.name) ? &variants[v.name] : nullptr;
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
      if (!contains_int((*var)["sm"], static_cast<int>(e.sm)))
        s.add("WC604", name + " is not a target the CUDA " + v.version() + " toolkit of variant " + v.name + " can build", b.path);
      else if (e.suffix == "a" && !contains_int(var->value("arch_specific", json::array()), static_cast<int>(e.sm)))
        s.add("WC604", name + ": CUDA " + v.version() + " has no architecture-specific target for sm_" + std::to_string(e.sm), b.path);
      else if (e.suffix == "f" && !contains_int(var->value("family", json::array()), static_cast<int>(e.sm)))
        s.add("WC604", name + ": CUDA " + v.version() + " has no family target for sm_" + std::to_string(e.sm), b.path);
    }
  }
}

// Required SASS / PTX for the variant (policy "require"), per wheel or per GPU-carrying binary.
void required_arches(const WheelFacts& f, const CudaVariant& v, const json& cuda, FindingSink& s) {
  const json& req = cuda.value("require", json::object());
  std::string key = v.name + "-" + wheel_arch(f);
  const json* r = req.contains(key) ? &req[key] : req.contains(v.name) ? &req[v.name] : nullptr;
  if (!r) return;
  auto check = [&](const std::vector<std::string>& sass, const std::vector<std::string>& ptx, const std::string& entry) {
    auto has = [](const std::vector<std::string>& have, const std::string& want) {
      // sm_90a / sm_100f code also runs on the SM it names, so it satisfies that requirement.
      return std::any_of(have.begin(), have.end(), [&](const std::string& h) {
        return h == want || (h.size() == want.size() + 1 && h.compare(0, want.size(), want) == 0);
      });
    };
    for (const auto& want : r->value("sass", json::array()))
      if (!has(sass, want)) s.add("WC602", "no SASS for " + want.get<std::string>() + " (variant " + v.name + " requires it)", entry);
    for (const auto& want : r->value("ptx", json::array()))
      if (!has(ptx, want))
        s.add("WC603", "no PTX " + want.get<std::string>() + " for forward compatibility (variant " + v.name + " requires it)", entry);
  };
  if (cuda.value("require_scope", std::string("wheel")) == "binary") {
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

void bundled_libraries(const WheelFacts& f, const json& cuda, FindingSink& s) {
  const json& globs = cuda.value("expect_from_dependencies", json::array());
  if (globs.empty()) return;
  for (const auto& e : f.entries) {
    std::string base = e.name.substr(e.name.rfind('/') == std::string::npos ? 0 : e.name.rfind('/') + 1);
    for (const auto& g : globs)
      if (glob_match(g.get<std::string>(), base)) {
        s.add("WC605", "bundles " + base + ", which the policy expects from an nvidia-* dependency wheel", e.name);
        break;
      }
  }
}

}  // namespace

void cuda_rules(const WheelFacts& f, FindingSink& s) {
  const json& cuda = s.policy().merged.contains("cuda") ? s.policy().merged["cuda"] : json::object();
  CudaFacts c = derive_cuda_facts(f, cuda);
  bundled_libraries(f, cuda, s);
  if (!c.variant) return;
  const json& variants = cuda.value("variants", json::object());
  variant_consistency(c, s);
  for (const auto& p : c.pins)
    if (!c.variant->cpu() && p.major != c.variant->major)
      s.add("WC204", "Requires-Dist '" + p.requirement + "' is a CUDA " + std::to_string(p.major) + " package; variant " +
                         c.variant->name + " is CUDA " + c.variant->version(),
            f.dist_info + "/METADATA");
  if (c.variant->cpu()) return;
  ptx_isa_check(f, *c.variant, variants, s);
  targetable(f, *c.variant, cuda, s);
  required_arches(f, *c.variant, cuda, s);
}

}  // namespace wc
