#include "smoke/compat.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

#include "binary/binary_facts.h"
#include "io/source.h"
#include "io/zip_index.h"
#include "io/zip_stream.h"
#include "util/parse.h"
#include "util/strings.h"

namespace wc::smoke {

namespace {

std::string cc_text(const Target& t) { return std::to_string(t.cc_major) + "." + std::to_string(t.cc_minor); }

void binary_compat(const BinaryFacts& b, const Target& t, const std::optional<std::string>& driver_cuda, FindingSink& s) {
  if (b.fatbin.empty()) return;
  bool sass = false;
  std::vector<const FatbinEntry*> ptx;
  for (const auto& e : b.fatbin.entries) {
    sass |= sass_runs_on(e, t);
    if (ptx_targets(e, t)) ptx.push_back(&e);
  }
  std::vector<std::string> jit_ok, jit_blocked;
  for (const auto* e : ptx) {
    std::string isa = std::to_string(e->version_major) + "." + std::to_string(e->version_minor);
    auto need = ptx_isa_min_cuda(isa);
    if (!driver_cuda || !need || compare_dotted(*driver_cuda, *need) >= 0) jit_ok.push_back(e->name());
    else jit_blocked.push_back(e->name() + " (PTX ISA " + isa + " needs a CUDA " + *need + " driver)");
  }
  std::string have = "has SASS " + (b.fatbin.sass().empty() ? "none" : join(b.fatbin.sass(), " ")) + ", PTX " +
                     (b.fatbin.ptx().empty() ? "none" : join(b.fatbin.ptx(), " "));
  std::string target = t.label + " (compute capability " + cc_text(t) + ")";
  if (sass) return;
  if (!jit_ok.empty()) {
    s.add("WS105", "no SASS for " + target + "; runs only by JIT-compiling " + join(jit_ok, ", "), b.path);
  } else if (!jit_blocked.empty()) {
    s.add("WS102", "no SASS for " + target + ", and the driver " + t.driver.value_or("?") + " (CUDA " +
                       driver_cuda.value_or("?") + ") cannot JIT " + join(jit_blocked, ", "),
          b.path);
  } else {
    s.add("WS101", "cannot run on " + target + ": needs SASS sm_" + std::to_string(t.cc_major) + "0..sm_" + std::to_string(t.cc()) +
                       " or PTX compute_" + std::to_string(t.cc()) + " or lower; " + have,
          b.path);
  }
}

void runtime_floor(const BinaryFacts& b, const Target& t, FindingSink& s) {
  if (!t.driver) return;
  bool shared_cudart = std::any_of(b.needed.begin(), b.needed.end(), [](const std::string& n) { return cudart_major(n).has_value(); });
  if (!shared_cudart && !b.cuda_toolkit.empty() && !b.fatbin.empty()) {
    // Kernels compiled by nvcc register through the cudart of their toolkit; without a shared
    // libcudart that runtime is linked in statically, with the same driver floor.
    auto major = parse_small(std::string_view(b.cuda_toolkit).substr(0, b.cuda_toolkit.find('.')), 999);
    auto floor = major ? runtime_driver_floor(*major) : std::nullopt;
    if (floor && compare_dotted(*t.driver, *floor) < 0)
      s.add("WS103", "GPU code compiled by CUDA " + b.cuda_toolkit + " with its runtime linked in statically needs driver " + *floor +
                         " or newer; the target's driver is " + *t.driver,
            b.path);
  }
  for (const auto& n : b.needed) {
    auto major = cudart_major(n);
    if (!major) continue;
    auto floor = runtime_driver_floor(*major);
    if (floor && compare_dotted(*t.driver, *floor) < 0)
      s.add("WS103", "links " + n + " (CUDA " + std::to_string(*major) + "), which needs driver " + *floor +
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
  std::map<size_t, RereadSink> sinks;
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
          s.add("WS104", "fatbin container " + std::to_string(p->next + 1) + " of " + std::to_string(ranges.size()) +
                             " (offset " + std::to_string(c_off) + ") failed to load: " + r.name + " (" + std::to_string(r.code) + ")",
                p->bin->path);
        p->buf.clear();
        p->buf.shrink_to_fit();
        ++p->next;
      }
      return false;  // every container seen: stop inflating this entry
    };
  }
  auto errors = reread_entries(*src, idx, sinks);
  for (const auto& [ci, err] : errors) s.add("WS104", "cannot re-read the binary to load its GPU code: " + err, idx.entries[ci].name);
}

}  // namespace wc::smoke
