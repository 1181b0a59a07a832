// How a binary's needed libraries resolve across an install set (DT_RPATH / DT_RUNPATH with
// $ORIGIN, auditwheel's `.libs` siblings), and which binaries anything loads at all. The binary
// rules (WC503, WC504) and the justified platform tag both read these.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "binary/binary_facts.h"
#include "facts/wheel_facts.h"
#include "policy/policy.h"
#include "rules/loader/install_set.h"

namespace wc {

// Where an entry installs, in one namespace: site-packages paths as they are, the data scheme's
// (the environment's prefix) as "<data>/path"; "" for scripts, headers and what installs nowhere.
std::string environment_path(std::string_view entry);

struct SearchDir {
  std::string written;                  // as in DT_RPATH / DT_RUNPATH
  std::optional<std::string> resolved;  // the install path it reaches; nullopt when it climbs out of site-packages
  bool absolute = false;                // a path of the build machine (resolved is nullopt)
  // Out of site-packages into the Python's own lib/pythonX.Y (torch/_C.so's $ORIGIN/../../nvidia):
  // inside the environment's prefix, written only by whoever installs into it.
  bool in_prefix = false;
};

// The binary's RPATH and RUNPATH entries, $ORIGIN resolved from where it installs.
std::vector<SearchDir> search_dirs(const BinaryFacts& b);

// The index in search_dirs(b) of the first entry where a wheel of `wheels` installs `soname`
// (the entry the loader finds it through), nullopt when none does.
std::optional<size_t> resolving_search_dir(const BinaryFacts& b, const std::string& soname,
                                           const std::vector<const WheelFacts*>& wheels);

struct Resolution {
  const WheelFacts* wheel = nullptr;
  std::string path;  // install path of the library found
};

// Finds `soname` for `b` among `wheels`: through its search directories, then beside it (the
// loader finds an already loaded sibling by soname, which is how auditwheel's .libs work).
std::optional<Resolution> resolve_needed(const BinaryFacts& b, const std::string& soname,
                                         const std::vector<const WheelFacts*>& wheels);

// The library file a need of `b` binds to in the install set: through its search paths and siblings
// (resolve_needed), else one already in the process because a project whose import loads its
// libraries (cuda.import_loaded: torch) is in the set and ships it, or one of its libraries needs
// it (libtorch_cuda.so loads libcudart.so.13 from nvidia-cuda-runtime). `binary` is null when the
// file found is not a parsed binary.
struct LibraryFile {
  const WheelFacts* wheel = nullptr;
  const BinaryFacts* binary = nullptr;
  std::string path;
};
std::optional<LibraryFile> library_file(const BinaryFacts& b, const std::string& need, const InstallSet& set,
                                        const CudaPolicy& cuda);
// InstallSet::preloaded: library_file's answers from what the import put in the process, by need.
struct PreloadedLibraries {
  std::map<std::string, std::optional<LibraryFile>, std::less<>> by_need;
};
// Whether `w` is a project whose import loads its libraries (cuda.import_loaded: torch).
bool import_loaded(const WheelFacts& w, const CudaPolicy& cuda);
// The binary of `w` whose file name is `soname`, else one whose DT_SONAME is, or null.
const BinaryFacts* shipped_library(const WheelFacts& w, std::string_view soname);
// The binary of `w` installed at `path` (an install path), or null.
const BinaryFacts* binary_at(const WheelFacts& w, const std::string& path);

// The environment a library belongs to that a machine or a run may lack: "CUDA 11" for
// libcudart.so.11.0, "CUDA 12/13" for libcusparse.so.12 (the CUDA majors that ship it), "CUDA"
// (cuDNN, NCCL), "ROCm", "MPI", "oneAPI/SYCL", "FFmpeg"; ""
// for any other.
std::string environment_of(std::string_view soname);

// Whether a declared provider's requirement can install `soname`: the cuda-toolkit meta-package's
// table lists every CUDA major's libraries, but cuda-toolkit[cudart]==13.2.2 installs CUDA 13's
// only (torch 2.15.0's requirement does not bring libcudart.so.12). Other providers: true.
bool provider_admits(std::string_view provider, const std::string& specifier, std::string_view soname);

// A need the platform's system provides (any level's library list of either family, the policy's
// allowed and driver libraries): the loader finds it outside the run.
bool system_library(const Policy& p, const std::string& soname);
// The declared dependency of `f` expected to install `soname` (the providers table, its extras'
// rows too) whose wheel is not in `set`: the library comes from outside the run. "" when there is
// none; with that wheel in the run, the library must be found there (as WC503 holds it).
std::string absent_dependency_for(const WheelFacts& f, const InstallSet& set, const Policy& p,
                                  const std::string& soname);
// The runtime a library is a copy of (a key of `runtimes`, the policy's linux.runtimes): by its
// soname's stem without auditwheel's -<8 hex> hash (libgomp-a34b3233.so.1 -> libgomp), else by a
// version node it defines (GOMP_4.0 -> libgomp; a copy renamed some other way). The stem decides
// first: LLVM's libomp defines GOMP_ nodes too. "" when it is none of them.
std::string runtime_of(const BinaryFacts& b, const std::map<std::string, std::vector<std::string>>& runtimes);

// Where the gate expects a need of `b` (a binary of `f`) to be met in a process, in the loader's
// order: a file of the run (library_file), a system library, a declared dependency whose wheel is
// not in the run, or nowhere (WC503's error).
struct NeedPrediction {
  enum class Where { wheel, system, dependency, nowhere } where = Where::nowhere;
  LibraryFile file;        // Where::wheel
  std::string dependency;  // Where::dependency: the project expected to install it
};
NeedPrediction predict_need(const WheelFacts& f, const BinaryFacts& b, const std::string& need, const InstallSet& set,
                            const Policy& p);

// Which ELF binaries of an install set something loads: Python extension modules and executables
// are entry points (in a wheel with neither, every library is one: its consumers live elsewhere),
// and a library is loaded when a loaded binary's needed library resolves to it.
class LoadGraph {
 public:
  explicit LoadGraph(const InstallSet& set);
  bool loaded(const WheelFacts& w, const BinaryFacts& b) const;
  // Loaded by itself (an extension module, an executable, a library of a wheel checked without its
  // consumers), not only as another binary's dependency.
  bool entry(const WheelFacts& w, const BinaryFacts& b) const;
  // An entry only because its wheel has no extension module, executable or library its Python code
  // loads, and linked by nothing of the run: a library something outside may load, or a variant a
  // loader picks at run time (bitsandbytes' libbitsandbytes_cuda118.so ... _cuda130.so).
  bool candidate(const WheelFacts& w, const BinaryFacts& b) const;

 private:
  std::set<std::pair<const WheelFacts*, const BinaryFacts*>> loaded_, entries_, candidates_;
};

// A library of `w` that its own Python code names, so the package loads it itself by path
// (WheelFacts::python_loaded): in the process before what needs it by soname.
bool python_loaded(const WheelFacts& w, const BinaryFacts& b);

// Code for a processor that is no host CPU: an NVIDIA cubin, a Hexagon DSP or AMD GPU object, BPF
// (a win_arm64 wheel's Hexagon skeletons). Nothing on the host loads it; no host rule judges it.
bool device_processor(std::string_view arch);

// A Python extension module CPython would import: an importable location and an extension suffix.
bool is_extension_module(std::string_view entry);
// The same judged from the binary too: a bare `name.so` (no ABI segment in its suffix) is an
// importable module only when it exports PyInit_name (or PyModExport_name); one that does not is a
// plugin a library loads with dlopen (ONNX Runtime's CUDA provider). When the dynamic symbols were
// not read (a huge .dynsym, --depth metadata) the name decides.
bool is_extension_module(const BinaryFacts& b);
// Whether an ELF binary exports its module's init function (PyInit_<stem>, PyModExport_<stem>);
// nullopt when that cannot be told (not ELF, or its dynamic symbols were not read).
std::optional<bool> exports_module_init(const BinaryFacts& b);

}  // namespace wc
