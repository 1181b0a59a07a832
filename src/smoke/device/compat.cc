#include "smoke/device/compat.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

#include "binary/binary_facts.h"
#include "io/inflate.h"
#include "io/source.h"
#include "io/zip_index.h"
#include "util/parse.h"
#include "util/strings.h"

namespace wc::smoke {

namespace {

std::string cc_text(const Target& t) { return std::to_string(t.cc_major) + "." + std::to_string(t.cc_minor); }

// How one fatbin container (one translation unit's kernels) fares on the target.
enum class Fate { sass, jit, jit_blocked, none };

struct ContainerFates {
  size_t sass = 0, jit = 0, blocked = 0, none = 0;
  std::set<std::string> jit_names, blocked_names, none_archs;  // what the failing ones carry
};

ContainerFates container_fates(const BinaryFacts& b, const Target& t, const std::optional<std::string>& driver_cuda) {
  std::map<size_t, std::vector<const FatbinEntry*>> by_container;
  for (const auto& e : b.fatbin.entries) by_container[e.container].push_back(&e);
  ContainerFates out;
  for (const auto& [c, entries] : by_container) {
    if (!b.fatbin.container_has_code(c)) continue;  // an empty module: nothing to run
    Fate fate = Fate::none;
    std::vector<std::string> jit, blocked, archs;
    for (const auto* e : entries) {
      archs.push_back(e->name());
      if (sass_runs_on(*e, t)) fate = Fate::sass;
      if (fate == Fate::sass || !ptx_targets(*e, t)) continue;
      std::string isa = std::to_string(e->version_major) + "." + std::to_string(e->version_minor);
      auto need = ptx_isa_min_cuda(isa);
      if (!driver_cuda || !need || compare_dotted(*driver_cuda, *need) >= 0) {
        jit.push_back(e->name());
        fate = Fate::jit;
      } else {
        blocked.push_back(e->name() + " (PTX ISA " + isa + " needs a CUDA " + *need + " driver)");
        if (fate == Fate::none) fate = Fate::jit_blocked;
      }
    }
    switch (fate) {
      case Fate::sass: ++out.sass; break;
      case Fate::jit: ++out.jit, out.jit_names.insert(jit.begin(), jit.end()); break;
      case Fate::jit_blocked: ++out.blocked, out.blocked_names.insert(blocked.begin(), blocked.end()); break;
      case Fate::none: ++out.none, out.none_archs.insert(archs.begin(), archs.end()); break;
    }
  }
  return out;
}

// Judged per container, not over the library's union: a library whose containers carry sm_75 in
// one of 33 has most of its kernels without an image on a T4. A finding names the library, how
// many containers cannot run, and what they carry.
void binary_compat(const BinaryFacts& b, const Target& t, const std::optional<std::string>& driver_cuda,
                   FindingSink& s) {
  if (b.fatbin.empty()) return;
  ContainerFates f = container_fates(b, t, driver_cuda);
  size_t total = f.sass + f.jit + f.blocked + f.none;
  std::string target = t.label + " (compute capability " + cc_text(t) + ")";
  // "the only fatbin container", "all 3 fatbin containers", "2 of 33 fatbin containers"
  auto of = [&](size_t n) {
    if (total == 1) return std::string("the only fatbin container");
    return (n == total ? "all " + std::to_string(total) : std::to_string(n) + " of " + std::to_string(total)) +
           " fatbin containers";
  };
  auto verb = [&](size_t n, const char* one, const char* many) { return std::string(n == 1 ? one : many); };
  auto list = [](const std::set<std::string>& v) { return join(sorted_arch_names({v.begin(), v.end()}), " "); };
  if (f.none)
    s.add("WS101",
          of(f.none) + " cannot run on " + target + " (" + verb(f.none, "it carries ", "they carry ") +
              list(f.none_archs) + "; " + target.substr(0, target.find(' ')) + " needs SASS sm_" +
              std::to_string(t.cc_major) + "0..sm_" + std::to_string(t.cc()) + " or PTX compute_" +
              std::to_string(t.cc()) + " or lower): their kernels fail with 'no kernel image'",
          b.path);
  if (f.blocked)
    s.add("WS102",
          of(f.blocked) + verb(f.blocked, " has", " have") + " no SASS for " + target + ", and the driver " +
              t.driver.value_or("?") + " (CUDA " + driver_cuda.value_or("?") + ") cannot JIT " + list(f.blocked_names),
          b.path);
  if (f.jit)
    s.add("WS105",
          of(f.jit) + verb(f.jit, " runs", " run") + " on " + target + " only by JIT-compiling " + list(f.jit_names),
          b.path);
}

void runtime_floor(const BinaryFacts& b, const Target& t, FindingSink& s) {
  if (!t.driver) return;
  bool shared_cudart =
      std::any_of(b.needed.begin(), b.needed.end(), [](const std::string& n) { return cudart_major(n).has_value(); });
  if (!shared_cudart && !b.cuda_toolkit.empty() && !b.fatbin.empty()) {
    // Kernels compiled by nvcc register through the cudart of their toolkit; without a shared
    // libcudart that runtime is linked in statically, with the same driver floor.
    auto major = parse_small(std::string_view(b.cuda_toolkit).substr(0, b.cuda_toolkit.find('.')), 999);
    auto floor = major ? runtime_driver_floor(*major) : std::nullopt;
    if (floor && compare_dotted(*t.driver, *floor) < 0)
      s.add("WS103",
            "GPU code compiled by CUDA " + b.cuda_toolkit + " with its runtime linked in statically needs driver " +
                *floor + " or newer; the target's driver is " + *t.driver,
            b.path);
  }
  for (const auto& n : b.needed) {
    auto major = cudart_major(n);
    if (!major) continue;
    auto floor = runtime_driver_floor(*major);
    if (floor && compare_dotted(*t.driver, *floor) < 0)
      s.add("WS103",
            "links " + n + " (CUDA " + std::to_string(*major) + "), which needs driver " + *floor +
                " or newer; the target's driver is " + *t.driver,
            b.path);
  }
}

}  // namespace

void compat_findings(const WheelFacts& f, const Target& t, FindingSink& s) {
  std::optional<std::string> driver_cuda;
  if (t.driver) driver_cuda = driver_cuda_version(*t.driver);
  for (const auto& b : f.binaries) {
    binary_compat(b, t, driver_cuda, s);
    runtime_floor(b, t, s);
  }
}

void load_containers(const std::string& wheel, const WheelFacts& f, Driver& drv, int device, FindingSink& s) {
  std::map<std::string, const BinaryFacts*> gpu;
  for (const auto& b : f.binaries)
    if (!b.fatbin.container_ranges.empty()) gpu[b.path] = &b;
  if (gpu.empty()) return;
  std::unique_ptr<Source> src;
  ZipIndex idx;
  try {
    src = open_source(wheel);
    idx = read_zip_index(*src);
  } catch (const IoError& e) {
    s.add("WS104", std::string("cannot reopen the wheel to load its GPU code: ") + e.what());
    return;
  }
  std::map<size_t, EntrySink> sinks;
  struct Pending {
    const BinaryFacts* bin;
    size_t next = 0;  // container index
    std::vector<uint8_t> buf;
  };
  std::map<size_t, Pending> state;
  for (const auto& z : idx.entries) {
    auto it = gpu.find(z.name);
    if (it == gpu.end()) continue;
    state[z.central_index] = Pending{it->second, 0, {}};
  }
  for (auto& [ci, pend] : state) {
    Pending* p = &pend;
    sinks[ci] = [p, &drv, device, &s](const uint8_t* d, size_t n, uint64_t off) {
      const auto& ranges = p->bin->fatbin.container_ranges;
      uint64_t end = off + n;
      while (p->next < ranges.size()) {
        auto [c_off, c_size] = ranges[p->next];
        uint64_t lo = std::max(off, c_off), hi = std::min(end, c_off + c_size);
        if (lo < hi) p->buf.insert(p->buf.end(), d + (lo - off), d + (hi - off));
        if (p->buf.size() < c_size) return true;  // this container continues in the next block
        LoadResult r = drv.load_container(device, p->buf.data());
        if (r.code != 0)
          s.add("WS104",
                "fatbin container " + std::to_string(p->next + 1) + " of " + std::to_string(ranges.size()) +
                    " (offset " + std::to_string(c_off) + ") failed to load: " + r.name + " (" +
                    std::to_string(r.code) + ")",
                p->bin->path);
        p->buf.clear();
        p->buf.shrink_to_fit();
        ++p->next;
      }
      return false;  // every container seen: stop inflating this entry
    };
  }
  auto errors = read_entries(*src, idx, sinks);
  for (const auto& [ci, err] : errors)
    s.add("WS104", "cannot re-read the binary to load its GPU code: " + err, idx.entries[ci].name);
}

namespace {

using Supported = std::map<std::string, std::map<std::string, std::vector<std::string>>>;  // ns -> feature -> values

bool compatible(const VariantProperties& props, const Supported& sup) {
  for (const auto& [ns, features] : props)
    for (const auto& [f, values] : features) {
      auto n = sup.find(ns);
      if (n == sup.end()) return false;
      auto it = n->second.find(f);
      if (it == n->second.end()) return false;
      if (std::none_of(values.begin(), values.end(), [&](const std::string& v) {
            return std::find(it->second.begin(), it->second.end(), v) != it->second.end();
          }))
        return false;
    }
  return true;
}

template <typename T>
size_t index_of(const std::vector<T>& v, const T& x) {
  return static_cast<size_t>(std::find(v.begin(), v.end(), x) - v.begin());
}

}  // namespace

std::vector<VariantSelection> select_variants(const std::vector<VariantCandidate>& wheels, const Target& t) {
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<const VariantCandidate*>> groups;
  for (const auto& w : wheels) {
    if (!w.name.valid) continue;
    std::string tags =
        join(w.name.python_tags, ".") + "-" + join(w.name.abi_tags, ".") + "-" + join(w.name.platform_tags, ".");
    groups[{w.name.canonical_name, w.name.version_text, tags}].push_back(&w);
  }
  std::optional<std::string> driver_cuda;
  if (t.driver) driver_cuda = driver_cuda_version(*t.driver);
  std::vector<VariantSelection> out;
  for (const auto& [key, members] : groups) {
    if (std::none_of(members.begin(), members.end(), [](const auto* m) { return m->name.variant_label.has_value(); }))
      continue;
    VariantSelection sel{std::get<0>(key), std::get<1>(key), std::get<2>(key), "", {}, {}};
    // What the machine supports: the NVIDIA provider's values, and the static properties the
    // files declare (a namespace like PyTorch's "priority" has no plugin).
    Supported sup;
    std::vector<std::string> ns_order;
    std::map<std::string, std::vector<std::string>> feature_prio;
    std::map<std::string, std::map<std::string, std::vector<std::string>>> value_prio;
    if (driver_cuda)
      sup["nvidia"] =
          nvidia_supported_values(std::to_string(t.cc_major) + "." + std::to_string(t.cc_minor), *driver_cuda);
    for (const auto* m : members) {
      if (!m->doc) continue;
      for (const auto& [ns, fs] : m->doc->static_properties)
        for (const auto& [f, vs] : fs) sup[ns][f] = vs;
      if (m->doc->namespace_priority.size() > ns_order.size()) ns_order = m->doc->namespace_priority;
      for (const auto& [ns, fs] : m->doc->feature_priority) feature_prio[ns] = fs;
      for (const auto& [ns, fs] : m->doc->property_priority)
        for (const auto& [f, vs] : fs) value_prio[ns][f] = vs;
    }
    // Orders: declared priorities first, then the provider's order.
    auto feature_order = [&](const std::string& ns) {
      std::vector<std::string> o = feature_prio[ns];
      for (const auto& [f, vs] : sup[ns])
        if (std::find(o.begin(), o.end(), f) == o.end()) o.push_back(f);
      return o;
    };
    auto value_order = [&](const std::string& ns, const std::string& f) {
      std::vector<std::string> o = value_prio[ns][f];
      for (const auto& v : sup[ns][f])
        if (std::find(o.begin(), o.end(), v) == o.end()) o.push_back(v);
      return o;
    };
    struct Ranked {
      const VariantCandidate* w;
      std::vector<std::tuple<size_t, size_t, size_t>> keys;
    };
    std::vector<Ranked> variants, null_variant, plain;
    for (const auto* m : members) {
      if (!m->name.variant_label) {
        plain.push_back({m, {}});
        continue;
      }
      const std::string& label = *m->name.variant_label;
      const VariantProperties* props = m->doc && m->doc->variants.count(label) ? &m->doc->variants.at(label) : nullptr;
      if (!props) {  // no declaration: installers cannot tell what it needs
        sel.incompatible.push_back(m->filename + " (no variant.json for its label)");
        continue;
      }
      if (!compatible(*props, sup)) {
        sel.incompatible.push_back(m->filename);
        continue;
      }
      Ranked r{m, {}};
      for (const auto& [ns, fs] : *props)
        for (const auto& [f, vs] : fs) {
          auto vo = value_order(ns, f);
          size_t best = vo.size();
          for (const auto& v : vs) best = std::min(best, index_of(vo, v));
          r.keys.emplace_back(index_of(ns_order, ns), index_of(feature_order(ns), f), best);
        }
      std::sort(r.keys.begin(), r.keys.end());
      (r.keys.empty() ? null_variant : variants).push_back(std::move(r));
    }
    std::stable_sort(variants.begin(), variants.end(), [](const Ranked& a, const Ranked& b) {
      size_t n = std::min(a.keys.size(), b.keys.size());
      for (size_t i = 0; i < n; ++i)
        if (a.keys[i] != b.keys[i]) return a.keys[i] < b.keys[i];
      if (a.keys.size() != b.keys.size()) return a.keys.size() > b.keys.size();  // a prefix: the longer wins
      return *a.w->name.variant_label < *b.w->name.variant_label;
    });
    for (const auto* list : {&variants, &null_variant, &plain})
      for (const auto& r : *list) sel.order.push_back(r.w->filename);
    if (!sel.order.empty()) sel.selected = sel.order.front();
    out.push_back(std::move(sel));
  }
  return out;
}

}  // namespace wc::smoke
