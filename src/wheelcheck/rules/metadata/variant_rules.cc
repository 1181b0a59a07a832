// WC801-WC805: wheel variants (PEP 825). What a variant wheel declares in *.dist-info/variant.json
// is what installers choose it by; these rules check the declaration against the file name, the
// schema, the providers' catalogues (policy data) and the binaries the wheel carries.
#include <map>
#include <set>

#include "binary/binary_facts.h"
#include "facts/cuda_facts.h"
#include "rules/rules.h"
#include "util/parse.h"
#include "util/strings.h"

namespace wc {
namespace {

std::optional<std::pair<int, int>> dotted2(std::string_view v) {
  auto dot = v.find('.');
  auto a = parse_small(v.substr(0, dot), 999);
  auto b = dot == std::string_view::npos ? std::optional<int>(0) : parse_small(v.substr(dot + 1), 999);
  if (!a || !b) return std::nullopt;
  return std::pair{*a, *b};
}

// "90_real" -> (9, 0, real); "100_virtual" -> (10, 0, virtual). The last digit is the minor.
struct SmValue {
  int major = 0, minor = 0;
  bool real = true;
};
std::optional<SmValue> sm_value(std::string_view v) {
  auto us = v.find('_');
  if (us == std::string_view::npos || us < 2) return std::nullopt;
  auto kind = v.substr(us + 1);
  if (kind != "real" && kind != "virtual") return std::nullopt;
  auto num = parse_small(v.substr(0, us), 9999);
  if (!num) return std::nullopt;
  return SmValue{*num / 10, *num % 10, kind == "real"};
}

// The GPU code of one binary, by name: sm_90, sm_90a, sm_100f; compute_90.
struct GpuBinary {
  const BinaryFacts* b;
  std::set<std::string> sass, ptx;
};

std::vector<GpuBinary> gpu_binaries(const WheelFacts& f) {
  std::vector<GpuBinary> out;
  for (const auto& b : f.binaries) {
    if (b.fatbin.empty()) continue;
    GpuBinary g{&b, {}, {}};
    for (const auto& n : b.fatbin.sass()) g.sass.insert(n);
    for (const auto& n : b.fatbin.ptx()) g.ptx.insert(n);
    if (!g.sass.empty() || !g.ptx.empty()) out.push_back(std::move(g));
  }
  return out;
}

std::string names(const std::vector<std::string>& v, size_t shown = 4) { return join_shown(v, shown); }

// WC801: the label and variant.json agree.
void label_rules(const WheelFacts& f, const std::optional<VariantDocument>& doc, const std::string& entry,
                 FindingSink& s) {
  const auto& label = f.filename.variant_label;
  if (label && label->size() > 16)
    s.add("WC801",
          "variant label '" + *label + "' is " + std::to_string(label->size()) +
              " characters: PEP 825 drafts up to 0.1.0 and today's installers allow at most 16",
          "", std::nullopt, Severity::warning);
  if (label && !doc) {
    s.add("WC801", "the file name has the variant label '" + *label + "' but the wheel has no " + entry);
    return;
  }
  if (!label && doc) {
    s.add("WC801",
          entry +
              " declares a variant, but the file name has no variant label: installers treat it as a "
              "plain wheel and never read the declaration",
          entry);
    return;
  }
  if (!label || !doc) return;
  if (doc->variants.size() != 1 || !doc->variants.count(*label)) {
    s.add("WC801",
          "'variants' must hold exactly the file name's label '" + *label + "'; it holds " +
              (doc->labels_in_order.empty() ? "none" : names(doc->labels_in_order)),
          entry);
    return;
  }
  const VariantProperties& props = doc->variants.at(*label);
  bool empty = std::all_of(props.begin(), props.end(), [](const auto& kv) { return kv.second.empty(); });
  if (*label == "null" && !empty)
    s.add("WC801",
          "the null variant declares properties (" + describe_variant_properties(props) +
              "): 'null' means no properties, every machine",
          entry);
  if (*label != "null" && empty)
    s.add("WC801",
          "variant '" + *label +
              "' declares no properties: only the label 'null' may (an empty variant is "
              "the null variant)",
          entry);
}

// WC803: each value within its provider's catalogue.
void catalogue_rules(const VariantProperties& props, const VariantPolicy& vp, const std::string& entry,
                     FindingSink& s) {
  for (const auto& [ns, features] : props) {
    auto cat = vp.catalogue.find(ns);
    if (cat == vp.catalogue.end()) continue;  // a namespace no catalogue describes (a static priority)
    for (const auto& [feature, values] : features) {
      auto rule = cat->second.find(feature);
      if (rule == cat->second.end()) {
        s.add(
            "WC803",
            "'" + ns + " :: " + feature + "' is not a feature the " + ns + " provider offers (it offers " +
                [&] {
                  std::vector<std::string> fs;
                  for (const auto& [n, r] : cat->second) fs.push_back(n);
                  return join(fs, ", ");
                }() +
                ")",
            entry);
        continue;
      }
      const VariantFeatureRule& r = rule->second;
      if (!r.multi_value && values.size() > 1)
        s.add("WC803",
              "'" + ns + " :: " + feature + "' takes one value; the variant gives " + std::to_string(values.size()) +
                  " (" + join(values, ", ") + ")",
              entry);
      for (const auto& v : values) {
        std::string prop = ns + " :: " + feature + " :: " + v;
        if (r.pattern && !r.pattern->search(v)) {
          s.add("WC803", "'" + prop + "' is outside the provider's values (" + r.pattern_text + ")", entry);
          continue;
        }
        if ((!r.min.empty() || !r.max.empty())) {
          auto x = dotted2(v), lo = dotted2(r.min), hi = dotted2(r.max);
          if (x && ((lo && *x < *lo) || (hi && *x > *hi)))
            s.add("WC803", "'" + prop + "' is outside the provider's range " + r.min + " to " + r.max, entry);
        }
        if (r.offered && !r.offered->search(v))
          s.add("WC803",
                "'" + prop + "' is a value the provider never offers" +
                    (r.offered_reason.empty() ? "" : ": " + r.offered_reason) + "; no machine selects it",
                entry, std::nullopt, Severity::warning);
      }
    }
  }
}

// WC804/WC805 for the nvidia namespace.
void nvidia_rules(const WheelFacts& f, const std::map<std::string, std::vector<std::string>>& nv, const Policy& p,
                  const std::string& entry, FindingSink& s) {
  auto gpus = gpu_binaries(f);
  bool every = p.variant.coverage_every;
  auto sm = nv.find("sm_arch");
  std::set<int> declared_majors;
  if (sm != nv.end()) {
    if (gpus.empty() && !f.metadata_depth)
      s.add("WC804", "declares nvidia :: sm_arch (" + join(sm->second, ", ") + ") but no binary carries GPU code",
            entry);
    for (const auto& v : sm->second) {
      auto x = sm_value(v);
      if (!x) continue;
      declared_majors.insert(x->major);
      std::string base = "sm_" + std::to_string(x->major * 10 + x->minor);
      std::string ptx = "compute_" + std::to_string(x->major * 10 + x->minor);
      std::vector<std::string> missing, arch_only;
      size_t backed = 0;
      for (const auto& g : gpus) {
        bool has = x->real ? (g.sass.count(base) || g.sass.count(base + "f")) : g.ptx.count(ptx) > 0;
        if (has) {
          ++backed;
        } else {
          missing.push_back(g.b->path);
          if (x->real && g.sass.count(base + "a")) arch_only.push_back(g.b->path);
        }
      }
      if (gpus.empty()) continue;
      bool fails = every ? !missing.empty() : backed == 0;
      if (!fails) continue;
      std::string prop = "nvidia :: sm_arch :: " + v;
      std::string what = x->real ? "SASS for " + base + " (or " + base + "f)" : "PTX for " + ptx;
      if (x->real && arch_only.size() == missing.size())
        s.add("WC804",
              "'" + prop + "' is backed only by " + base + "a SASS in " + names(arch_only) +
                  ": it runs on compute capability " + std::to_string(x->major) + "." + std::to_string(x->minor) +
                  " exactly, not on the later " + std::to_string(x->major) + ".x GPUs that also select this variant",
              entry, std::nullopt, Severity::warning);
      else
        s.add("WC804",
              "'" + prop + "' is declared but " + std::to_string(missing.size()) + " of " +
                  std::to_string(gpus.size()) + " GPU binaries carry no " + what + " (" + names(missing) +
                  "): installed on such a GPU, their kernels do not load",
              entry);
    }
    // WC805: code for a compute capability major no declared value selects.
    std::map<std::pair<std::string, int>, std::vector<std::string>> unselected;  // (arch, major) -> binaries
    for (const auto& g : gpus) {
      for (const auto& n : g.sass) {
        std::string_view digits = std::string_view(n).substr(3);  // sm_100a -> 100
        auto num = parse_small(digits.substr(0, digit_prefix(digits)), 9999);
        if (num && !declared_majors.count(*num / 10)) unselected[{n, *num / 10}].push_back(g.b->path);
      }
    }
    for (const auto& [key, bins] : unselected)
      s.add("WC805",
            key.first + " SASS in " + std::to_string(bins.size()) + " binar" + (bins.size() == 1 ? "y" : "ies") + " (" +
                names(bins, 2) + "), but no declared sm_arch value is for compute capability " +
                std::to_string(key.second) + ".x: no GPU that runs it selects this variant",
            entry, std::nullopt, Severity::warning);
  }
  auto lower = nv.find("cuda_version_lower_bound");
  if (lower != nv.end() && lower->second.size() == 1) {
    const std::string& bound = lower->second.front();
    auto b = dotted2(bound);
    if (!b) return;
    CudaFacts c = derive_cuda_facts(f, p.cuda);
    std::set<std::string> other;
    for (const auto& l : c.links)
      if (l.soname.starts_with("libcudart") && l.major != b->first) other.insert(l.binary + " links " + l.soname);
    for (const auto& pin : c.pins)
      if (pin.major != b->first) other.insert("Requires-Dist " + pin.requirement);
    if (!other.empty())
      s.add("WC804",
            "'nvidia :: cuda_version_lower_bound :: " + bound + "' names CUDA " + std::to_string(b->first) + ", but " +
                names(std::vector<std::string>(other.begin(), other.end()), 3) +
                ": the runtime needs a driver of that major",
            entry);
    // PTX is compiled by the driver: its ISA needs a driver of at least the CUDA release that
    // introduced it.
    std::map<std::string, std::string> need;  // PTX ISA -> binary
    for (const auto& g : gpus)
      for (const auto& e : g.b->fatbin.entries)
        if (e.kind == FatbinEntry::ptx)
          need.emplace(std::to_string(e.version_major) + "." + std::to_string(e.version_minor), g.b->path);
    for (const auto& [isa, bin] : need) {
      auto it = p.cuda.ptx_isa_min_cuda.find(isa);
      if (it == p.cuda.ptx_isa_min_cuda.end()) continue;
      auto m = dotted2(it->second);
      if (m && *m > *b)
        s.add("WC804",
              "'nvidia :: cuda_version_lower_bound :: " + bound + "' admits drivers that cannot JIT PTX ISA " + isa +
                  " (" + bin + "; it needs CUDA " + it->second + " or later)",
              entry);
    }
  }
}

void x86_rules(const WheelFacts& f, const std::vector<std::string>& level, const std::string& entry, FindingSink& s) {
  if (level.size() != 1 || !level.front().starts_with("v")) return;
  auto n = parse_small(std::string_view(level.front()).substr(1), 99);
  if (!n) return;  // not a level (WC803 says so)
  unsigned declared = static_cast<unsigned>(*n);
  for (const auto& b : f.binaries)
    if (b.x86_isa_level && *b.x86_isa_level > declared)
      s.add("WC804",
            "'x86_64 :: level :: " + level.front() + "' is declared, but " + b.path + " needs x86-64-v" +
                std::to_string(*b.x86_isa_level) + " (its GNU property note): on a " + level.front() +
                " machine it stops with an illegal instruction",
            entry);
}

// gfx_arch: each declared processor needs a code object in the .hip_fatbin offload bundle of every
// binary with AMD GPU code (or of one, with coverage "any").
void gfx_rules(const WheelFacts& f, const std::vector<std::string>& gfx, bool every, const std::string& entry,
               FindingSink& s) {
  std::vector<const BinaryFacts*> hip;
  for (const auto& b : f.binaries)
    if (!b.hip.empty()) hip.push_back(&b);
  if (hip.empty()) {
    if (!f.metadata_depth)
      s.add("WC804",
            "declares amd :: gfx_arch (" + join(gfx, ", ") + ") but no binary carries AMD GPU code (.hip_fatbin)",
            entry);
    return;
  }
  for (const auto& g : gfx) {
    std::vector<std::string> missing;
    size_t backed = 0;
    for (const auto* b : hip) {
      auto procs = b->hip.processors();
      if (std::find(procs.begin(), procs.end(), g) != procs.end())
        ++backed;
      else
        missing.push_back(b->path + (b->hip.error.empty() ? "" : " (" + b->hip.error + ")"));
    }
    if (every ? missing.empty() : backed > 0) continue;
    s.add("WC804",
          "'amd :: gfx_arch :: " + g + "' is declared but " + std::to_string(missing.size()) + " of " +
              std::to_string(hip.size()) + " HIP binaries carry no " + g + " code object (" + names(missing) +
              "): on that GPU, their kernels do not load",
          entry);
  }
  // Code for a processor nothing declares: nobody who has it selects this variant.
  std::set<std::string> unselected;
  for (const auto* b : hip)
    for (const auto& p : b->hip.processors())
      if (std::find(gfx.begin(), gfx.end(), p) == gfx.end()) unselected.insert(p);
  if (!unselected.empty())
    s.add("WC805",
          "code objects for " + join(std::vector<std::string>(unselected.begin(), unselected.end()), ", ") +
              " but no declared gfx_arch value names them: no GPU that runs them selects this variant",
          entry, std::nullopt, Severity::warning);
}

void amd_rules(const WheelFacts& f, const std::vector<std::string>& rocm, const std::string& entry, FindingSink& s) {
  if (rocm.size() != 1) return;
  auto r = dotted2(rocm.front());
  if (!r) return;
  for (const auto& b : f.binaries)
    for (const auto& n : b.needed)
      if (n.starts_with("libamdhip64.so.")) {
        auto major = parse_small(std::string_view(n).substr(15), 999);
        if (major && *major != r->first)
          s.add("WC804",
                "'amd :: rocm_version :: " + rocm.front() + "' is declared, but " + b.path + " links " + n + " (ROCm " +
                    std::to_string(*major) + ")",
                entry);
      }
}

}  // namespace

void variant_rules(const WheelFacts& f, FindingSink& s) {
  if (!f.filename.valid) return;
  const std::string entry = f.dist_info + "/variant.json";
  const auto& doc = f.variant;
  if (!f.filename.variant_label && !doc) return;
  label_rules(f, doc, entry, s);
  if (!doc) return;
  for (const auto& e : doc->errors) s.add("WC802", e, entry);
  for (const auto& w : doc->warnings) s.add("WC802", w, entry, std::nullopt, Severity::warning);
  const Policy& p = s.policy();
  for (const auto& [label, props] : doc->variants) {
    catalogue_rules(props, p.variant, entry, s);
    if (f.filename.variant_label && label != *f.filename.variant_label) continue;
    if (auto nv = props.find("nvidia"); nv != props.end()) nvidia_rules(f, nv->second, p, entry, s);
    if (auto x = props.find("x86_64"); x != props.end() && x->second.count("level"))
      x86_rules(f, x->second.at("level"), entry, s);
    if (auto a = props.find("amd"); a != props.end()) {
      if (a->second.count("rocm_version")) amd_rules(f, a->second.at("rocm_version"), entry, s);
      if (a->second.count("gfx_arch")) gfx_rules(f, a->second.at("gfx_arch"), p.variant.coverage_every, entry, s);
    }
  }
}

}  // namespace wc
