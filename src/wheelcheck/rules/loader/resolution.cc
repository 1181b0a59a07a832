#include "rules/loader/resolution.h"

#include <algorithm>
#include <deque>
#include <map>

#include "rules/rules.h"
#include "util/parse.h"
#include "util/strings.h"
#include "wheel/entry_names.h"
#include "wheel/version.h"

namespace wc {
namespace {

// Normalises "a/b/../c" in the environment. Site-packages is <prefix>/lib/pythonX.Y/site-packages
// on POSIX, and the data scheme installs into <prefix> ("<data>/lib/libx.so"): a path that climbs
// out of site-packages to <prefix>/lib or <prefix> reaches what `.data/data/` installs. nullopt
// when it leaves the environment, or ends beside site-packages in lib/pythonX.Y (nothing installs
// there).
// The components of an install path with "." and ".." applied, from the environment's prefix
// ("<data>"); nullopt when it climbs above the prefix.
std::optional<std::vector<std::string>> components(std::string_view path) {
  std::vector<std::string> out;
  if (consume(path, "<data>/") || path == "<data>")
    out = {"<data>"};
  else
    out = {"<data>", "lib", "python3", "site-packages"};
  if (path == "<data>") path = {};
  for (auto part : split(path, '/')) {
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (out.size() == 1) return std::nullopt;
      out.pop_back();
    } else {
      out.emplace_back(part);
    }
  }
  return out;
}

std::optional<std::string> normalise(std::string_view path) {
  auto parts = components(path);
  if (!parts) return std::nullopt;
  const auto& out = *parts;
  const bool in_python_lib = out.size() >= 3 && out[1] == "lib" && out[2].starts_with("python");
  if (in_python_lib && out.size() >= 4 && out[3] == "site-packages")
    return join(std::vector<std::string>(out.begin() + 4, out.end()), "/");
  if (in_python_lib) return std::nullopt;
  return join(out, "/");
}

std::string dir_of(const std::string& install_path) { return std::string(parent_dir(install_path)); }

std::string join_path(const std::string& dir, const std::string& name) { return dir.empty() ? name : dir + "/" + name; }

bool installed_by_any(const std::vector<const WheelFacts*>& wheels, const std::string& path, const WheelFacts** who) {
  for (const auto* w : wheels)
    if (w->installs(path)) {
      if (who) *who = w;
      return true;
    }
  return false;
}

// The first of `dirs` where a wheel of `wheels` installs `soname`.
std::optional<size_t> first_dir_with(const std::vector<SearchDir>& dirs, const std::string& soname,
                                     const std::vector<const WheelFacts*>& wheels, const WheelFacts** who) {
  for (size_t i = 0; i < dirs.size(); ++i)
    if (dirs[i].resolved && installed_by_any(wheels, join_path(*dirs[i].resolved, soname), who)) return i;
  return std::nullopt;
}

}  // namespace

std::string environment_path(std::string_view entry) {
  auto t = install_target(entry);
  return t && (t->library() || t->scheme == "data") ? t->key() : "";
}

std::vector<SearchDir> search_dirs(const BinaryFacts& b) {
  std::vector<SearchDir> out;
  std::string here = dir_of(environment_path(b.path));
  for (const auto* list : {&b.rpath, &b.runpath})
    for (const auto& r : *list) {
      if (r.empty()) continue;
      SearchDir d{r, std::nullopt, false, false};
      std::string_view v = r;
      if (consume(v, "${ORIGIN}") || consume(v, "$ORIGIN")) {
        d.resolved = normalise(here + "/" + std::string(v));
        d.in_prefix = !d.resolved && components(here + "/" + std::string(v)).has_value();
      } else
        d.absolute = true;  // absolute, or relative to the process's working directory: not the wheel's
      out.push_back(std::move(d));
    }
  return out;
}

std::optional<size_t> resolving_search_dir(const BinaryFacts& b, const std::string& soname,
                                           const std::vector<const WheelFacts*>& wheels) {
  return first_dir_with(search_dirs(b), soname, wheels, nullptr);
}

std::optional<Resolution> resolve_needed(const BinaryFacts& b, const std::string& soname,
                                         const std::vector<const WheelFacts*>& wheels) {
  const WheelFacts* who = nullptr;
  const auto dirs = search_dirs(b);
  if (auto i = first_dir_with(dirs, soname, wheels, &who))
    return Resolution{who, join_path(*dirs[*i].resolved, soname)};
  std::string here = environment_path(b.path);
  std::string sibling = join_path(dir_of(here), soname);
  if (!here.empty() && installed_by_any(wheels, sibling, &who)) return Resolution{who, sibling};
  // An extension module Python has imported is in the process under its soname, and the loader
  // binds a later DT_NEEDED of that name to it (triton's plugins need libtriton.so, which is
  // triton/_C/libtriton.so). So is a library the package's own Python code loads by path
  // (torchtext's _extension.py loads lib/libtorchtext.so before _torchtext.so, which needs it by
  // soname with no RUNPATH to it).
  for (const auto* w : wheels)
    for (const auto& other : w->binaries)
      if (other.soname == soname && (is_extension_module(other) || python_loaded(*w, other)))
        return Resolution{w, environment_path(other.path)};
  for (const auto* w : wheels)
    for (const auto& entry : w->python_loaded) {
      const std::string where = environment_path(entry);
      if (last_component(entry) != soname || where.empty()) continue;
      if (const BinaryFacts* lib = binary_at(*w, where); lib && lib->format == "elf") return Resolution{w, where};
    }
  return std::nullopt;
}

bool device_processor(std::string_view arch) {
  return arch == "cuda" || arch == "hexagon" || arch == "amdgpu" || arch == "bpf";
}

bool python_loaded(const WheelFacts& w, const BinaryFacts& b) {
  return std::binary_search(w.python_loaded.begin(), w.python_loaded.end(), b.path);
}

const BinaryFacts* binary_at(const WheelFacts& w, const std::string& path) {
  for (const auto& b : w.binaries)
    if (environment_path(b.path) == path) return &b;
  return nullptr;
}

bool import_loaded(const WheelFacts& w, const CudaPolicy& cuda) {
  return w.filename.valid && std::find(cuda.import_loaded.begin(), cuda.import_loaded.end(),
                                       w.filename.canonical_name) != cuda.import_loaded.end();
}

const BinaryFacts* shipped_library(const WheelFacts& w, std::string_view soname) {
  // The file named as the need first: that is the one a directory search opens (pyarrow ships
  // libarrow_python.so and libarrow_python.so.2500, copies with one DT_SONAME, and its import loads
  // the latter); a file that only declares the soname serves when nothing is named so.
  for (const auto& lib : w.binaries)
    if (last_component(lib.path) == soname) return &lib;
  for (const auto& lib : w.binaries)
    if (lib.soname == soname) return &lib;
  return nullptr;
}

std::optional<LibraryFile> library_file(const BinaryFacts& b, const std::string& need, const InstallSet& set,
                                        const CudaPolicy& cuda) {
  // What a project whose import loads its libraries (import torch) put in the process: its own
  // libraries, and those its libraries need (libtorch_cuda.so needs libcudart.so.13, which then sits
  // in the process). What its libraries do not need (libcudart.so.12 beside a CUDA 13 torch)
  // nothing preloads.
  auto find_preloaded = [&]() -> std::optional<LibraryFile> {
    for (const auto* w : set.wheels) {
      if (!import_loaded(*w, cuda)) continue;
      if (const BinaryFacts* lib = shipped_library(*w, need)) return LibraryFile{w, lib, environment_path(lib->path)};
    }
    for (const auto* w : set.wheels) {
      if (!import_loaded(*w, cuda)) continue;
      auto own = std::find_if(w->binaries.begin(), w->binaries.end(), [&](const BinaryFacts& o) {
        return std::find(o.needed.begin(), o.needed.end(), need) != o.needed.end();
      });
      if (own == w->binaries.end()) continue;
      // Where that library of the project finds it (its RUNPATH: nvidia/cu13/lib), not a copy
      // some other wheel of the set carries under the same soname.
      if (auto r = resolve_needed(*own, need, set.wheels))
        return LibraryFile{r->wheel, binary_at(*r->wheel, r->path), r->path};
      for (const auto* u : set.wheels)
        if (const BinaryFacts* lib = shipped_library(*u, need)) return LibraryFile{u, lib, environment_path(lib->path)};
    }
    // Further down what the import loads: libtorch_cuda.so loads libcusparse.so.12, which loads
    // libnvJitLink.so.13 from its own wheel; after `import torch` that is in the process too
    // (bitsandbytes' _cuda130.so binds it there). Breadth first over the set's files, each once.
    std::deque<std::pair<const WheelFacts*, const BinaryFacts*>> queue;
    std::set<const BinaryFacts*> seen;
    for (const auto* w : set.wheels)
      if (import_loaded(*w, cuda))
        for (const auto& o : w->binaries)
          if (o.format == "elf" && seen.insert(&o).second) queue.emplace_back(w, &o);
    while (!queue.empty()) {
      auto [w, lib] = queue.front();
      queue.pop_front();
      for (const auto& n : lib->needed) {
        auto r = resolve_needed(*lib, n, set.wheels);
        if (!r) continue;
        const BinaryFacts* found = binary_at(*r->wheel, r->path);
        if (n == need) return LibraryFile{r->wheel, found, r->path};
        if (found && found->format == "elf" && seen.insert(found).second) queue.emplace_back(r->wheel, found);
      }
    }
    return std::nullopt;
  };
  // It asks nothing of `b`: once per need and set.
  auto preloaded = [&]() -> std::optional<LibraryFile> {
    if (!set.preloaded) return find_preloaded();
    auto& known = set.preloaded->by_need;
    if (auto it = known.find(need); it != known.end()) return it->second;
    return known.emplace(need, find_preloaded()).first->second;
  };
  // ld.so binds a need to an object already loaded under that name before it searches any
  // directory: a binary of another wheel, loaded after that import, gets the preloaded copy even
  // where its own search path reaches another (torchvision's _C_stable.so needs libcudart.so.13 and
  // its torchvision.libs holds a copy with that soname; the process binds torch's from
  // nvidia-cuda-runtime). The importing project's own binaries load in their own order.
  bool of_preloading_project = std::any_of(set.wheels.begin(), set.wheels.end(), [&](const WheelFacts* w) {
    return import_loaded(*w, cuda) &&
           std::any_of(w->binaries.begin(), w->binaries.end(), [&](const BinaryFacts& o) { return &o == &b; });
  });
  if (!of_preloading_project)
    if (auto p = preloaded()) return p;
  if (auto r = resolve_needed(b, need, set.wheels))
    return LibraryFile{r->wheel, binary_at(*r->wheel, r->path), r->path};
  return preloaded();
}

std::string environment_of(std::string_view soname) {
  std::string_view stem = soname.substr(0, soname.find(".so"));
  std::string_view version = soname.size() > stem.size() + 4 ? soname.substr(stem.size() + 4) : std::string_view();
  std::string_view major = version.substr(0, version.find('.'));
  static constexpr std::string_view cuda_versioned[] = {"libcudart", "libcublas",    "libcublasLt",   "libcufft",
                                                        "libcufftw", "libcusolver",  "libcusolverMg", "libcusparse",
                                                        "libnvrtc",  "libnvJitLink", "libcupti",      "libnvblas",
                                                        "libnvjpeg", "libnppc",      "libnppial",     "libnppig"};
  // The math libraries whose soname major is not the toolkit's (REFERENCE.md: CUDA 13 ships
  // libcufft.so.12, libcusolver.so.12 and libcusparse.so.12, CUDA 12 libcufft.so.11 and
  // libcusolver.so.11): soname major -> the CUDA majors that ship it.
  struct Offset {
    std::string_view stem, major, cuda;
  };
  static constexpr Offset offsets[] = {
      {"libcufft", "10", "11"},       {"libcufft", "11", "12"},      {"libcufft", "12", "13"},
      {"libcufftw", "10", "11"},      {"libcufftw", "11", "12"},     {"libcufftw", "12", "13"},
      {"libcusolver", "11", "11/12"}, {"libcusolver", "12", "13"},   {"libcusolverMg", "11", "11/12"},
      {"libcusolverMg", "12", "13"},  {"libcusparse", "12", "12/13"}};
  for (const auto& o : offsets)
    if (stem == o.stem && major == o.major) return "CUDA " + std::string(o.cuda);
  for (auto s : cuda_versioned)
    if (stem == s) return major.empty() ? "CUDA" : "CUDA " + std::string(major);
  static constexpr std::string_view cuda[] = {"libcudnn",    "libnccl",       "libcurand",
                                              "libcutensor", "libcusparseLt", "libnvToolsExt",
                                              "libnvshmem",  "libcufile",     "libnvtx3interop"};
  for (auto s : cuda)
    if (stem.starts_with(s)) return "CUDA";
  static constexpr std::string_view rocm[] = {
      "libamdhip64",  "libhip",     "librocblas",   "librocm",   "librocrand", "librocfft",        "librocsolver",
      "librocsparse", "libroctx64", "libroctracer", "libMIOpen", "librccl",    "libhsa-runtime64", "libamd_comgr"};
  for (auto s : rocm)
    if (stem.starts_with(s)) return "ROCm";
  static constexpr std::string_view mpi[] = {"libmpi", "libopen-rte", "libopen-pal", "libmpich", "libucp", "libucs"};
  for (auto s : mpi)
    if (stem.starts_with(s)) return "MPI";
  // The oneAPI runtime and its compiler's math and runtime libraries (an XPU build's libsvml.so).
  static constexpr std::string_view oneapi[] = {"libsycl", "libze_loader", "libur_loader", "libmkl_sycl", "libOpenCL",
                                                "libsvml", "libirng",      "libimf",       "libintlc"};
  for (auto s : oneapi)
    if (stem.starts_with(s)) return "oneAPI/SYCL";
  // FFmpeg's libraries, by major (torchcodec ships libtorchcodec_core4.so ... _core8.so, one per
  // FFmpeg it may find on the machine).
  static constexpr std::string_view ffmpeg[] = {"libavcodec",  "libavformat",   "libavutil",  "libavdevice",
                                                "libavfilter", "libswresample", "libswscale", "libpostproc"};
  for (auto s : ffmpeg)
    if (stem == s) return "FFmpeg";
  // No OpenMP runtime here: a libgomp.so.1 a wheel forgot to vendor is auditwheel's error, not a
  // variant for another machine.
  return "";
}

bool provider_admits(std::string_view provider, const std::string& specifier, std::string_view soname) {
  if (!provider.starts_with("cuda-toolkit") || specifier.empty()) return true;
  const std::string env = environment_of(soname);
  if (!env.starts_with("CUDA ")) return true;
  auto spec = SpecifierSet::parse(specifier);
  if (!spec) return true;
  // Any of the CUDA majors that ship the soname ("CUDA 12/13" for libcusparse.so.12).
  const std::string majors_text = env.substr(5);
  const std::vector<std::string_view> majors = split(majors_text, '/');
  // Some release of that major admitted: the versions the specifier names, then a sweep.
  std::vector<std::string> tries;
  for (std::string_view rest = specifier; !rest.empty();) {
    uint64_t n = 0;
    if (!consume_number(rest, 1u << 30, n)) {  // not a number here, or one too large: skip it whole
      rest.remove_prefix(std::max<size_t>(1, digit_prefix(rest)));
      continue;
    }
    std::string version = std::to_string(n);
    while (consume(rest, ".") && consume_number(rest, 1u << 30, n)) version += "." + std::to_string(n);
    tries.push_back(std::move(version));
  }
  for (const auto& major : majors)
    for (int minor = 0; minor <= 30; ++minor)
      for (const char* patch : {".0", ".99"}) tries.push_back(std::string(major) + "." + std::to_string(minor) + patch);
  return std::any_of(tries.begin(), tries.end(), [&](const std::string& t) {
    if (std::find(majors.begin(), majors.end(), t.substr(0, t.find('.'))) == majors.end()) return false;
    auto v = parse_version(t);
    return v && spec->contains(*v);
  });
}

bool system_library(const Policy& p, const std::string& soname) {
  for (const auto* levels : {&p.linux.manylinux, &p.linux.musllinux})
    for (const auto& l : *levels)
      if (std::find(l.libraries.begin(), l.libraries.end(), soname) != l.libraries.end()) return true;
  return glob_any(p.linux.allowed_libraries, soname) || glob_any(p.cuda.driver_libraries, soname);
}

std::string absent_dependency_for(const WheelFacts& f, const InstallSet& set, const Policy& p,
                                  const std::string& soname) {
  // f's own declarations first, then those of the wheels installed with it: a declared
  // dependency's dependencies install libraries too (cuquantum-cu12 brings cutensornet-cu12).
  std::vector<const WheelFacts*> declaring{&f};
  for (const auto* w : set.wheels)
    if (w != &f) declaring.push_back(w);
  for (const auto* by : declaring)
    for (const auto& d : declared_providers(*by, p)) {
      if (!glob_any(p.cuda.provided_by(d.name), soname) || !provider_admits(d.name, d.specifier, soname)) continue;
      bool present = std::any_of(set.wheels.begin(), set.wheels.end(), [&](const WheelFacts* w) {
        return w->filename.valid && w->filename.canonical_name == d.name;
      });
      if (!present) return d.name;
    }
  return "";
}

std::string runtime_of(const BinaryFacts& b, const std::map<std::string, std::vector<std::string>>& runtimes) {
  std::string name(b.soname.empty() ? last_component(b.path) : std::string_view(b.soname));
  std::string stem = name.substr(0, name.find(".so"));
  auto dash = stem.rfind('-');
  if (dash != std::string::npos && stem.size() - dash == 9 && all_hex(std::string_view(stem).substr(dash + 1)))
    stem.resize(dash);
  if (runtimes.count(stem)) return stem;
  for (const auto& v : b.version_defs)
    for (const auto& [runtime, prefixes] : runtimes)
      for (const auto& prefix : prefixes)
        if (v.starts_with(prefix)) return runtime;
  return "";
}

NeedPrediction predict_need(const WheelFacts& f, const BinaryFacts& b, const std::string& need, const InstallSet& set,
                            const Policy& p) {
  NeedPrediction out;
  if (auto file = library_file(b, need, set, p.cuda)) {
    out.where = NeedPrediction::Where::wheel;
    out.file = *file;
  } else if (system_library(p, need)) {
    out.where = NeedPrediction::Where::system;
  } else if (std::string dep = absent_dependency_for(f, set, p, need); !dep.empty()) {
    out.where = NeedPrediction::Where::dependency;
    out.dependency = dep;
  }
  return out;
}

bool is_extension_module(std::string_view entry) {
  auto s = extension_suffix(entry);
  return s && s->python_extension && !install_path(entry).empty();
}

std::optional<bool> exports_module_init(const BinaryFacts& b) {
  if (b.format != "elf" || !b.undefined_symbols_read) return std::nullopt;
  std::string_view base = last_component(b.path);
  const std::string stem(base.substr(0, base.find('.'))), init = "PyInit_" + stem, modexport = "PyModExport_" + stem;
  return std::any_of(b.module_inits.begin(), b.module_inits.end(),
                     [&](const std::string& sym) { return sym == init || sym == modexport; });
}

bool is_extension_module(const BinaryFacts& b) {
  auto s = extension_suffix(b.path);
  if (!s || !s->python_extension || install_path(b.path).empty()) return false;
  if (!s->abi.empty()) return true;
  return exports_module_init(b).value_or(true);
}

// A shared object without the "lib" prefix that is not an extension module (nvshmem_transport_ibrc.so.6,
// a CUDA plugin): a plugin something loads with dlopen, never a library linked against.
bool is_plugin(const BinaryFacts& b) { return !last_component(b.path).starts_with("lib") && !is_extension_module(b); }

LoadGraph::LoadGraph(const InstallSet& set) {
  std::map<std::pair<const WheelFacts*, std::string>, const BinaryFacts*> by_path;
  std::map<const WheelFacts*, std::vector<const BinaryFacts*>> elves, entries;
  for (const auto* w : set.wheels)
    for (const auto& b : w->binaries) {
      if (b.format != "elf" || device_processor(b.arch)) continue;
      elves[w].push_back(&b);
      by_path[{w, environment_path(b.path)}] = &b;
      if (!b.interpreter.empty() || is_extension_module(b) || python_loaded(*w, b)) entries[w].push_back(&b);
    }
  // Wheels whose libraries a binary of another wheel in the set links: their consumers are here,
  // so the graph alone says what is loaded.
  std::set<const WheelFacts*> consumed;
  for (const auto& [w, bins] : elves)
    for (const auto* b : bins)
      for (const auto& need : b->needed)
        if (auto r = resolve_needed(*b, need, set.wheels); r && r->wheel != w) consumed.insert(r->wheel);
  std::deque<std::pair<const WheelFacts*, const BinaryFacts*>> queue;
  for (const auto& [w, bins] : elves) {
    if (!entries[w].empty()) {
      for (const auto* b : entries[w]) queue.emplace_back(w, b);
    } else if (!consumed.count(w)) {
      // A library wheel checked without its consumers: every library it ships is someone's entry
      // point, except plugins (which only the library that dlopens them loads) and add-ons: a
      // library that links a sibling and that no sibling links (libcufile_rdma.so.1 beside
      // libcufile.so.0) extends that sibling, which loads it when the feature is used.
      std::set<const BinaryFacts*> links_sibling, linked_by_sibling;
      const std::vector<const WheelFacts*> self{w};
      for (const auto* b : bins)
        for (const auto& need : b->needed)
          if (auto r = resolve_needed(*b, need, self); r && by_path.count({w, r->path})) {
            links_sibling.insert(b);
            linked_by_sibling.insert(by_path.at({w, r->path}));
          }
      for (const auto* b : bins)
        if (!is_plugin(*b) && !(links_sibling.count(b) && !linked_by_sibling.count(b))) {
          queue.emplace_back(w, b);
          candidates_.insert({w, b});
        }
    }
  }
  entries_.insert(queue.begin(), queue.end());
  while (!queue.empty()) {
    auto [w, b] = queue.front();
    queue.pop_front();
    if (!loaded_.insert({w, b}).second) continue;
    for (const auto& need : b->needed) {
      auto r = resolve_needed(*b, need, set.wheels);
      if (!r) continue;
      auto it = by_path.find({r->wheel, r->path});
      if (it == by_path.end()) continue;
      candidates_.erase({r->wheel, it->second});  // a library another one links is no candidate
      if (!loaded_.count({r->wheel, it->second})) queue.emplace_back(r->wheel, it->second);
    }
  }
}

bool LoadGraph::candidate(const WheelFacts& w, const BinaryFacts& b) const { return candidates_.count({&w, &b}) > 0; }

bool LoadGraph::loaded(const WheelFacts& w, const BinaryFacts& b) const { return loaded_.count({&w, &b}) > 0; }
bool LoadGraph::entry(const WheelFacts& w, const BinaryFacts& b) const { return entries_.count({&w, &b}) > 0; }

}  // namespace wc
