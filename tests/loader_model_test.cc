// The install-tree model against what the dynamic loader does on the real pairs that broke it
// (issue 45), each rebuilt here from gcc objects: a provider whose version the requirement
// excludes, python tags that install on later interpreters, libraries a package loads itself by
// path, variants a loader picks at run time, names a library of unknown symbols cannot define, and
// a runtime the declared torch does not bring.
#include <gtest/gtest.h>

#include "policy/policy.h"
#include "rules/loader/install_set.h"
#include "rules/loader/resolution.h"
#include "rules/loader/symbol_binding.h"
#include "support/fixtures.h"
#include "support/test_support.h"
#include "wheel_builder.h"

namespace wc {
namespace {

using testing::run_command;
using testing::shell_quote;
using testing::WheelBuilder;

using testing::says;
const auto dump_of = testing::dump;

constexpr const char* kTag = "cp312-cp312-manylinux_2_28_x86_64";

class Loader : public ::testing::Test {
 protected:
  testing::TempDir dir;
  // A shared object `name` from C source, linked with `flags` (-L is this folder).
  std::string so(const std::string& name, const std::string& src, const std::string& flags = "") {
    return testing::gcc_shared_object(dir, name, src, flags);
  }
  // Links against the stub `file` (built first) so that its soname lands in DT_NEEDED.
  std::string with(const std::string& file) { return "-Wl,--no-as-needed " + shell_quote(dir.file(file)); }
  // The findings of the first wheel, judged in a run of all of them (default policy).
  static std::vector<Finding> judge(std::vector<const WheelBuilder*> run_of) {
    static const Policy p = load_policy("default");
    std::vector<std::pair<std::vector<uint8_t>, std::string>> wheels;
    for (const auto* w : run_of) wheels.emplace_back(w->build(), w->filename());
    return testing::judge_first_of_run(wheels, p);  // whole facts, and the facts a run keeps, alike
  }
  // A torch-like provider `version` whose torch/lib/libc10.so defines `defines` (C source).
  WheelBuilder torch(const std::string& version, const std::string& defines, const std::string& tag = kTag) {
    WheelBuilder t("torch", version, tag);
    t.purelib(false)
        .add("torch/__init__.py", "")
        .add("torch/lib/libc10.so", so("libc10-" + version + ".so", defines, "-Wl,-soname,libc10.so"));
    return t;
  }
};

// c10::gone() and c10::kept(), mangled, for C sources.
const std::string kC10 = "void gone(void) __asm__(\"_ZN3c104goneEv\"); void kept(void) __asm__(\"_ZN3c104keptEv\");";
const std::string kOldC10 = kC10 + " void gone(void){} void kept(void){}";
const std::string kNewC10 = kC10 + " void kept(void){}";

// 1. torchvision 0.28.0 (torch==2.13.0) beside torch 2.15.0: pip refuses the pair, and installed
// anyway the import fails on a c10 symbol 2.15 dropped. Both are findings; with the pinned torch in
// the run too, that one is the provider and nothing is said.
TEST_F(Loader, AProviderTheRequirementExcludesStillLoads) {
  so("libc10.so", kOldC10, "-Wl,-soname,libc10.so");
  std::string ext = so("ext.so", kC10 + " int use(void){gone(); kept(); return 0;}", with("libc10.so"));
  WheelBuilder vision("vision", "0.28.0", kTag);
  vision.purelib(false).add("vision/_C.cpython-312-x86_64-linux-gnu.so", ext).requires_dist("torch==2.13.0");
  WheelBuilder old = torch("2.13.0", kOldC10), current = torch("2.15.0", kNewC10);
  auto forced = judge({&vision, &current});
  EXPECT_TRUE(says(forced,
                   "WC517 [error] vision-0.28.0.dist-info/METADATA: Requires-Dist torch==2.13.0 excludes torch 2.15.0 "
                   "(torch-2.15.0-cp312-cp312-manylinux_2_28_x86_64.whl)"))
      << dump_of(forced);
  EXPECT_TRUE(says(forced, "WC514 [error] vision/_C.cpython-312-x86_64-linux-gnu.so: 1 undefined symbol"))
      << dump_of(forced);
  EXPECT_TRUE(says(forced, "_ZN3c104goneEv (c10::gone())")) << dump_of(forced);
  EXPECT_FALSE(says(forced, "not in the checked set")) << dump_of(forced);
  auto pinned = judge({&vision, &current, &old});
  EXPECT_FALSE(testing::has_rule(pinned, "WC517")) << dump_of(pinned);
  EXPECT_FALSE(testing::has_rule(pinned, "WC514")) << dump_of(pinned);
  // A pin under an extra excludes only when that extra is asked for: no conflict, and the run's
  // torch is not the extension's.
  WheelBuilder extra_only("vision", "0.28.0", kTag);
  extra_only.purelib(false)
      .add("vision/_C.cpython-312-x86_64-linux-gnu.so", ext)
      .requires_dist("torch==2.13.0; extra == \"legacy\"");
  auto optional_pin = judge({&extra_only, &current});
  EXPECT_FALSE(testing::has_rule(optional_pin, "WC517")) << dump_of(optional_pin);
  // Of two excluded versions, the newest is the one judged against (and named).
  WheelBuilder older = torch("2.12.0", kNewC10);
  auto two = judge({&vision, &older, &current});
  EXPECT_TRUE(says(two, "excludes torch 2.15.0")) << dump_of(two);
}

// 2. pyXY installs on every Python from X.Y on (packaging's compatible tags): xformers'
// py39-none-manylinux wheel is installed with a cp312 torch; a cp39 wheel is not.
TEST_F(Loader, PythonTagsInstallOnLaterInterpreters) {
  auto name = [](const std::string& f) { return parse_wheel_filename(f); };
  EXPECT_TRUE(installable_together(name("x-1-py39-none-manylinux_2_28_x86_64.whl"),
                                   name("torch-2.15.0-cp312-cp312-manylinux_2_28_x86_64.whl")));
  EXPECT_FALSE(installable_together(name("x-1-py312-none-manylinux_2_28_x86_64.whl"),
                                    name("torch-2.15.0-cp311-cp311-manylinux_2_28_x86_64.whl")));
  EXPECT_FALSE(installable_together(name("x-1-cp39-none-manylinux_2_28_x86_64.whl"),
                                    name("torch-2.15.0-cp312-cp312-manylinux_2_28_x86_64.whl")));
  EXPECT_TRUE(installable_together(name("x-1-py3-none-any.whl"), name("y-1-cp313-cp313t-win_amd64.whl")));
  // The py39 extension resolves libc10.so against the cp312 torch of the run, and a symbol that
  // torch lacks is an error, not "whose wheel is not in the checked set".
  so("libc10.so", kOldC10, "-Wl,-soname,libc10.so");
  WheelBuilder x("xf", "0.0.35", "py39-none-manylinux_2_28_x86_64");
  x.purelib(false)
      .add("xf/_C.cpython-39-x86_64-linux-gnu.so",
           so("xf.so", kC10 + " int f(void){gone(); return 0;}", with("libc10.so")))
      .requires_dist("torch>=2.10");
  WheelBuilder t = torch("2.15.0", kNewC10);
  auto f = judge({&x, &t});
  EXPECT_FALSE(says(f, "not in the checked set")) << dump_of(f);
  EXPECT_TRUE(says(f, "WC514 [error] xf/_C.cpython-39-x86_64-linux-gnu.so")) << dump_of(f);
}

// 4. torchtext's _extension.py loads lib/libtorchtext.so by path before _torchtext.so, which needs
// it by soname with no RUNPATH to it; fbgemm_gpu's __init__.py loads its op libraries (bare
// `name.so`, no PyInit_) with torch.ops.load_library. What the package loads is in the process:
// the need is met, and what those libraries cannot bind is an error, as the import fails on it.
TEST_F(Loader, LibrariesThePackageLoadsItself) {
  so("libc10.so", kOldC10, "-Wl,-soname,libc10.so");
  std::string own =
      so("libtext.so", kC10 + " int text(void){gone(); return 1;}", "-Wl,-soname,libtext.so " + with("libc10.so"));
  std::string ext = so("_text.so", "int text(void); int e(void){return text();}", with("libtext.so"));
  std::string op = so("ops_a.so", kC10 + " int op(void){gone(); return 0;}", with("libc10.so"));
  auto build = [&](const std::string& loader) {
    WheelBuilder w("text", "0.18.0", kTag);
    w.purelib(false)
        .add("text/lib/libtext.so", own)
        .add("text/_text.cpython-312-x86_64-linux-gnu.so", ext)
        .add("text/ops_a.so", op)
        .add("text/_extension.py", loader)
        .requires_dist("torch");
    return w;
  };
  WheelBuilder t = torch("2.15.0", kNewC10);
  WheelBuilder loads = build("import torch\n_load_lib('libtext')\ntorch.ops.load_library(_dir / \"ops_a.so\")\n");
  auto f = judge({&loads, &t});
  EXPECT_FALSE(says(f, "WC503 [error] text/_text")) << dump_of(f);
  EXPECT_TRUE(says(f, "WC514 [error] text/lib/libtext.so")) << dump_of(f);
  EXPECT_TRUE(says(f, "WC514 [error] text/ops_a.so")) << dump_of(f);
  // Named outside a string (a comment's prose, an identifier) is no load.
  WheelBuilder silent = build("# libtext and ops_a are built by CMake\nops_a = 1\n");
  auto g = judge({&silent, &t});
  EXPECT_TRUE(says(g, "WC503 [error] text/_text.cpython-312-x86_64-linux-gnu.so: needs libtext.so")) << dump_of(g);
  EXPECT_TRUE(says(g, "WC514 [warning] text/ops_a.so")) << dump_of(g);
}

// 4b. bitsandbytes ships one library per CUDA (and ROCm) and loads the one matching torch's: the
// others need an environment the run lacks. Each is a candidate (a warning naming what it needs,
// once per binary), never an error; its symbols still have to bind where it loads.
TEST_F(Loader, VariantsALoaderPicksAtRunTime) {
  so("libcudart11.so", "int cudaMalloc(void){return 0;}", "-Wl,-soname,libcudart.so.11.0");
  so("libcublas11.so", "int cublasCreate(void){return 0;}", "-Wl,-soname,libcublas.so.11");
  so("libmpi.so", "int MPI_Init(void){return 0;}", "-Wl,-soname,libmpi.so.40");
  WheelBuilder w("bnb", "0.50.2", "py3-none-manylinux_2_24_x86_64");
  w.purelib(false)
      .add("bnb/libbnb_cuda118.so",
           so("libbnb_cuda118.so",
              "int cudaMalloc(void); int cublasCreate(void); int k(void){return cudaMalloc()+cublasCreate();}",
              with("libcudart11.so") + " " + with("libcublas11.so")))
      .add("bnb/libbnb_mpi.so",
           so("libbnb_mpi.so", "int MPI_Init(void); int m(void){return MPI_Init();}", with("libmpi.so")))
      .add("bnb/libbnb_cpu.so", so("libbnb_cpu.so", "int c(void){return 0;}"))
      .add("bnb/cextension.py", "lib = PACKAGE_DIR / f'libbnb_{prefix}{version}.so'\n");
  auto f = judge({&w});
  EXPECT_FALSE(has_errors(f)) << dump_of(f);
  EXPECT_TRUE(says(f,
                   "WC503 [warning] bnb/libbnb_cuda118.so: needs libcudart.so.11.0, libcublas.so.11, of CUDA 11, "
                   "which nothing in the run provides"))
      << dump_of(f);
  EXPECT_TRUE(says(f, "WC503 [warning] bnb/libbnb_mpi.so: needs libmpi.so.40, of MPI")) << dump_of(f);
  // An OpenMP runtime is no other environment: a libgomp.so.1 the wheel forgot to vendor stays an error.
  so("libgomp.so", "int omp_get_max_threads(void){return 1;}", "-Wl,-soname,libgomp.so.1");
  WheelBuilder gomp("gompy", "1.0", "py3-none-manylinux_2_24_x86_64");
  gomp.purelib(false).add("gompy/libgompy.so",
                          so("libgompy.so", "int omp_get_max_threads(void); int g(void){return omp_get_max_threads();}",
                             with("libgomp.so")));
  auto unvendored = judge({&gomp});
  EXPECT_TRUE(says(unvendored, "WC503 [error] gompy/libgompy.so: needs libgomp.so.1")) << dump_of(unvendored);
  // An extension module needing the same library is no candidate: the import fails.
  WheelBuilder m("bnbx", "0.1", kTag);
  m.purelib(false).add("bnbx/_k.cpython-312-x86_64-linux-gnu.so",
                       so("_k.so", "int cudaMalloc(void); int k(void){return cudaMalloc();}", with("libcudart11.so")));
  auto g = judge({&m});
  EXPECT_TRUE(says(g, "WC503 [error] bnbx/_k.cpython-312-x86_64-linux-gnu.so: needs libcudart.so.11.0")) << dump_of(g);
}

// 3. A library whose symbols the run does not know (the driver's libcuda.so.1) may define any
// unversioned name, but no name of a namespace a known library of the scope owns: c10::gone(),
// missing from the run's libc10.so, is an error (fbgemm_gpu's c10::report_overflow beside torch
// 2.15.0), not taken on trust. `inspect`'s binding counts say which names went where.
TEST_F(Loader, NamesOfAKnownNamespaceAreNotTakenOnTrust) {
  so("libc10.so", kOldC10, "-Wl,-soname,libc10.so");
  so("libcuda.so", "int cuInit(int f){return f;} void other_driver(void){}", "-Wl,-soname,libcuda.so.1");
  std::string ext = so(
      "ext.so",
      kC10 +
          " int cuInit(int); void other_driver(void); int use(void){gone(); kept(); other_driver(); return cuInit(0);}",
      with("libc10.so") + " " + with("libcuda.so"));
  WheelBuilder w("ext", "1.0", kTag);
  w.purelib(false).add("ext/_C.cpython-312-x86_64-linux-gnu.so", ext).requires_dist("torch");
  WheelBuilder t = torch("2.15.0", kNewC10);
  auto f = judge({&w, &t});
  EXPECT_TRUE(says(f, "WC514 [error] ext/_C.cpython-312-x86_64-linux-gnu.so: 1 undefined symbol")) << dump_of(f);
  EXPECT_TRUE(says(f, "c10::gone()")) << dump_of(f);
  std::vector<WheelFacts> run;
  run.push_back(testing::facts_of(w.build(), w.filename()));
  run.push_back(testing::facts_of(t.build(), t.filename()));
  Policy p = load_policy("default");
  auto bindings = symbol_bindings(run[0], install_set_for(run[0], run, nullptr, p.cuda.import_loaded), p);
  ASSERT_EQ(bindings.size(), 1u);
  const auto& b = bindings[0];
  EXPECT_EQ(b.unbound, 1u);
  ASSERT_FALSE(b.bound.empty());
  EXPECT_EQ(b.bound[0].first, "torch/lib/libc10.so (torch 2.15.0)");
  EXPECT_EQ(b.bound[0].second, 1u);  // c10::kept()
  bool driver = false;
  for (const auto& [why, n] : b.trusted) driver |= why.find("libcuda.so.1") != std::string::npos && n >= 2;
  EXPECT_TRUE(driver) << "cuInit and other_driver taken on trust from libcuda.so.1";
}

// 2b. xformers' libcudart.so.12 beside a CUDA 13 torch: torch is the declared dependency and is in
// the run, but nothing `import torch` loads needs a CUDA 12 runtime, so nothing installs it: an
// error (the loader fails), where it once was "whose wheel is not in the checked set".
TEST_F(Loader, ARuntimeTheDeclaredTorchDoesNotBring) {
  so("libcudart12.so", "int cudaMalloc(void){return 0;}", "-Wl,-soname,libcudart.so.12");
  so("libcudart13.so", "int cudaMalloc(void){return 0;}", "-Wl,-soname,libcudart.so.13");
  WheelBuilder x("xf", "0.0.35", kTag);
  x.purelib(false)
      .add("xf/_C.cpython-312-x86_64-linux-gnu.so",
           so("xf12.so", "int cudaMalloc(void); int f(void){return cudaMalloc();}", with("libcudart12.so")))
      .requires_dist("torch>=2.10");
  WheelBuilder t = torch("2.15.0", kNewC10);
  t.add("torch/lib/libtorch_cuda.so", so("libtorch_cuda.so", "int cudaMalloc(void); int g(void){return cudaMalloc();}",
                                         "-Wl,-soname,libtorch_cuda.so " + with("libcudart13.so")));
  auto f = judge({&x, &t});
  EXPECT_TRUE(says(f, "WC503 [error] xf/_C.cpython-312-x86_64-linux-gnu.so: needs libcudart.so.12, which is not found"))
      << dump_of(f);
  EXPECT_TRUE(says(f, "the dependency torch 2.15.0 (torch>=2.10) is in the run, and nothing its import loads needs"))
      << dump_of(f);
  // A CUDA 13 extension is served by what torch's libraries need (its own dependencies install it).
  WheelBuilder y("yf", "0.1", kTag);
  y.purelib(false)
      .add("yf/_C.cpython-312-x86_64-linux-gnu.so",
           so("yf13.so", "int cudaMalloc(void); int f(void){return cudaMalloc();}", with("libcudart13.so")))
      .requires_dist("torch>=2.10");
  auto g = judge({&y, &t});
  EXPECT_FALSE(has_errors(g)) << dump_of(g);
  EXPECT_TRUE(says(g, "come from the dependency torch")) << dump_of(g);
  EXPECT_TRUE(says(g, "whose own dependencies install them")) << dump_of(g);
}

// 5. What `.data/data/` installs lands in the environment's prefix: an extension in site-packages
// reaches <prefix>/lib through $ORIGIN/../../../../lib, an executable of .data/data/bin its
// libraries through $ORIGIN/../lib; climbing above the prefix leaves the environment (WC504).
TEST_F(Loader, DataSchemeLibrariesAreInTheEnvironment) {
  std::string dep = so("libdep.so", "int dep(void){return 1;}", "-Wl,-soname,libdep.so.1");
  std::string ext = so("_ext.so", "int dep(void); int e(void){return dep();}",
                       with("libdep.so") + " -Wl,-rpath,'$ORIGIN/../../../../lib'");
  WheelBuilder w("dpkg", "1.0", kTag);
  w.purelib(false).add("dpkg/_ext.cpython-312-x86_64-linux-gnu.so", ext).add("dpkg-1.0.data/data/lib/libdep.so.1", dep);
  auto f = judge({&w});
  EXPECT_FALSE(testing::has_rule(f, "WC503")) << dump_of(f);
  EXPECT_FALSE(testing::has_rule(f, "WC504")) << dump_of(f);
  // One level more climbs out of the environment: not found, and the entry is outside it.
  std::string far = so("_far.so", "int dep(void); int e(void){return dep();}",
                       with("libdep.so") + " -Wl,-rpath,'$ORIGIN/../../../../../lib'");
  WheelBuilder x("dpkg", "1.0", kTag);
  x.purelib(false).add("dpkg/_ext.cpython-312-x86_64-linux-gnu.so", far).add("dpkg-1.0.data/data/lib/libdep.so.1", dep);
  auto g = judge({&x});
  EXPECT_TRUE(says(g, "WC503 [error] dpkg/_ext.cpython-312-x86_64-linux-gnu.so: needs libdep.so.1")) << dump_of(g);
  EXPECT_TRUE(says(g, "WC504 [error]")) << dump_of(g);
}

// 5b. Code for another processor is no host binary: a Hexagon DSP skeleton in a win_arm64 wheel,
// and a 32-bit helper executable under x86/ of an x86_64 wheel, get no WC501/WC502/WC514 error.
TEST_F(Loader, CodeForAnotherProcessorIsNotJudgedAsHost) {
  auto hexagon = testing::tiny_elf(true, false, 164);
  WheelBuilder w("qnn", "1.0", "cp312-cp312-win_arm64");
  w.purelib(false).add("qnn/lib/hexagon-v73/libQnnHtpV73Skel.so", std::string(hexagon.begin(), hexagon.end()));
  auto f = testing::findings_of(w.build(), w.filename());
  EXPECT_FALSE(testing::has_rule(f, "WC501")) << dump_of(f);
  auto i686 = testing::tiny_elf(false, false, 3);
  WheelBuilder h("helper", "1.0", kTag);
  h.purelib(false).add("helper/x86/crashpad_handler", std::string(i686.begin(), i686.end()));
  auto g = testing::findings_of(h.build(), h.filename());
  EXPECT_FALSE(has_errors(g)) << dump_of(g);
  EXPECT_TRUE(says(g, "WC501 [warning] helper/x86/crashpad_handler: ELF i686")) << dump_of(g);
  // The same 32-bit code as an extension module is the tag's error.
  WheelBuilder m("helper", "1.0", kTag);
  m.purelib(false).add("helper/_m.cpython-312-x86_64-linux-gnu.so", std::string(i686.begin(), i686.end()));
  auto e = testing::findings_of(m.build(), m.filename());
  EXPECT_TRUE(says(e, "WC501 [error]")) << dump_of(e);
}

// A thin arm64 Mach-O dylib: its install name (LC_ID_DYLIB, none when empty), the dylibs it loads
// (a leading '?' marks a weak one), its LC_RPATHs.
std::string macho(const std::string& install_name, const std::vector<std::string>& dylibs,
                  const std::vector<std::string>& rpaths) {
  std::vector<uint8_t> cmds;
  auto u32 = [&](uint32_t v) {
    for (int i = 0; i < 4; ++i) cmds.push_back(static_cast<uint8_t>(v >> (8 * i)));
  };
  auto str = [&](const std::string& s, size_t room) {
    cmds.insert(cmds.end(), s.begin(), s.end());
    cmds.resize(cmds.size() + room - s.size(), 0);
  };
  uint32_t ncmds = 1;
  u32(0x32), u32(24), u32(1), u32(0x000B0000), u32(0x000E0000), u32(0);  // LC_BUILD_VERSION, macOS 11
  auto dylib_cmd = [&](uint32_t cmd, const std::string& name) {
    uint32_t size = static_cast<uint32_t>((24 + name.size() + 1 + 7) & ~size_t(7));
    u32(cmd), u32(size), u32(24), u32(0), u32(0x10000), u32(0x10000), str(name, size - 24);
    ++ncmds;
  };
  if (!install_name.empty()) dylib_cmd(0xd, install_name);
  for (const auto& d : dylibs) d[0] == '?' ? dylib_cmd(0x80000018, d.substr(1)) : dylib_cmd(0xc, d);
  for (const auto& r : rpaths) {
    uint32_t size = static_cast<uint32_t>((12 + r.size() + 1 + 7) & ~size_t(7));
    u32(0x8000001c), u32(size), u32(12), str(r, size - 12);
    ++ncmds;
  }
  std::vector<uint8_t> h;
  for (uint32_t v : {0xfeedfacfu, 0x0100000cu, 0u, 6u, ncmds, static_cast<uint32_t>(cmds.size()), 0u, 0u})
    for (int i = 0; i < 4; ++i) h.push_back(static_cast<uint8_t>(v >> (8 * i)));
  h.insert(h.end(), cmds.begin(), cmds.end());
  return std::string(h.begin(), h.end());
}

constexpr const char* kMac = "cp312-cp312-macosx_11_0_arm64";

// 6. macOS: every torch extension's only LC_RPATH is a CI build folder, and its @rpath/libc10.dylib
// is the image `import torch` loaded under that install name; a dylib the wheel's own loader finds
// through its LC_RPATHs (the loading chain); a weak dylib; libz through dyld's fallback; absolute
// LC_RPATHs (WC504 as on Linux); a plugin whose host provides what it loads.
TEST_F(Loader, MacOsInstallNamesResolveAsDyldDoes) {
  const std::string lsys = "/usr/lib/libSystem.B.dylib";
  WheelBuilder t("torch", "2.15.0", kMac);
  t.purelib(false).add("torch/__init__.py", "").add("torch/lib/libc10.dylib", macho("@rpath/libc10.dylib", {lsys}, {}));
  WheelBuilder v("vis", "0.30.0", kMac);
  v.purelib(false)
      .add("vis/_C.so", macho("", {lsys, "@rpath/libc10.dylib", "@rpath/libz.1.dylib", "?@rpath/libopt.dylib"},
                              {"/Users/runner/work/pytorch/build/lib"}))
      .requires_dist("torch==2.15.0");
  auto with_torch = judge({&v, &t});
  EXPECT_FALSE(testing::has_rule(with_torch, "WC503")) << dump_of(with_torch);
  EXPECT_TRUE(says(with_torch,
                   "WC504 [warning] vis/_C.so: dead LC_RPATH entries outside the install tree: "
                   "/Users/runner/work/pytorch/build/lib (absolute)"))
      << dump_of(with_torch);
  auto alone = judge({&v});
  EXPECT_TRUE(says(alone,
                   "WC503 [warning] vis/_C.so: arm64 slice loads @rpath/libc10.dylib, which comes from the "
                   "dependency torch"))
      << dump_of(alone);
  EXPECT_FALSE(has_errors(alone)) << dump_of(alone);
  // The loading chain: .dylibs/libinner.dylib finds @rpath/libdeep.dylib through the LC_RPATH of
  // the extension that loads it; with no such loader, it is not found, and an absolute LC_RPATH
  // (mindspore's Xcode folder) may then supply it: an error.
  auto chain = [&](bool loader) {
    WheelBuilder w("chain", "1.0", kMac);
    w.purelib(false)
        .add("chain/.dylibs/libinner.dylib",
             macho("@rpath/libinner.dylib", {lsys, "@rpath/libdeep.dylib"},
                   {"/Applications/Xcode.app/Contents/Developer/Toolchains/XcodeDefault.xctoolchain/usr/lib"}))
        .add("chain/.dylibs/libdeep.dylib", macho("@rpath/libdeep.dylib", {lsys}, {}));
    if (loader)
      w.add("chain/_ext.cpython-312-darwin.so", macho("", {lsys, "@rpath/libinner.dylib"}, {"@loader_path/.dylibs"}));
    else
      w.add("chain/_ext.cpython-312-darwin.so", macho("", {lsys}, {}));
    return judge({&w});
  };
  auto found = chain(true);
  EXPECT_FALSE(testing::has_rule(found, "WC503")) << dump_of(found);
  auto lost = chain(false);
  EXPECT_TRUE(says(lost, "WC503 [error] chain/.dylibs/libinner.dylib: arm64 slice loads @rpath/libdeep.dylib"))
      << dump_of(lost);
  EXPECT_TRUE(says(lost,
                   "WC504 [error] chain/.dylibs/libinner.dylib: LC_RPATH entries outside the install tree: "
                   "/Applications/Xcode.app"))
      << dump_of(lost);
  // tensorflow-metal: a plugin TensorFlow loads, needing TensorFlow's own image.
  WheelBuilder p("metal", "1.2.0", kMac);
  p.purelib(false).add("tensorflow-plugins/libmetal_plugin.dylib",
                       macho("", {lsys, "@rpath/_pywrap_tensorflow_internal.so"}, {"@loader_path"}));
  auto plugin = judge({&p});
  EXPECT_TRUE(says(plugin, "WC503 [warning] tensorflow-plugins/libmetal_plugin.dylib")) << dump_of(plugin);
  EXPECT_FALSE(has_errors(plugin)) << dump_of(plugin);
}

// WC515 names the torch the binary was built against where the run shows it: the torch wheel of
// the run that defines every unstable name it imports.
TEST_F(Loader, TorchAbiNamesTheTorchThatDefinesItsSymbols) {
  so("libc10.so", kOldC10, "-Wl,-soname,libc10.so");
  WheelBuilder x("ext", "1.0", kTag);
  x.purelib(false)
      .add("ext/_C.cpython-312-x86_64-linux-gnu.so",
           so("kx.so", kC10 + " int f(void){kept(); return 0;}", with("libc10.so")))
      .requires_dist("torch>=2.10");
  WheelBuilder t = torch("2.15.0", kNewC10);
  auto f = judge({&x, &t});
  EXPECT_TRUE(
      says(f, "WC515 [warning] ext/_C.cpython-312-x86_64-linux-gnu.so: uses torch's unstable C++ ABI (1 symbol"))
      << dump_of(f);
  EXPECT_TRUE(says(f, "torch 2.15.0 of the run defines all 1 of them: pin that release (torch==2.15.*)")) << dump_of(f);
  // One name that torch lacks: no torch of the run is the one it was built against.
  WheelBuilder y("ext", "1.0", kTag);
  y.purelib(false)
      .add("ext/_C.cpython-312-x86_64-linux-gnu.so",
           so("ky.so", kC10 + " int f(void){kept(); gone(); return 0;}", with("libc10.so")))
      .requires_dist("torch>=2.10");
  auto g = judge({&y, &t});
  EXPECT_TRUE(says(g, "pin the release it was built against (torch==X.Y.*)")) << dump_of(g);
}

// On Windows the same ABI is read from the imports of torch's DLLs, MSVC-decorated: a name in a
// c10, at, torch or caffe2 scope other than torch::stable / torch::headeronly is unstable.
TEST_F(Loader, TorchAbiOnWindowsReadsDecoratedImports) {
  if (run_command("command -v clang && command -v lld-link").exit_code != 0)
    GTEST_SKIP() << "clang or lld-link missing: no Windows DLLs can be built here";
  auto cl = [&](const std::string& name, const std::string& src, const std::string& link) {
    std::string cc = dir.file(name + ".cc");
    testing::write_file(cc, std::vector<uint8_t>(src.begin(), src.end()));
    auto r = run_command("clang++ --target=x86_64-pc-windows-msvc -c " + shell_quote(cc) + " -o " +
                         shell_quote(dir.file(name + ".obj")) + " && cd " + shell_quote(dir.path()) +
                         " && lld-link /dll /noentry /nodefaultlib " + link + " " + name + ".obj");
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    auto bytes = testing::read_file(dir.file(name + ".dll"));
    return std::string(bytes.begin(), bytes.end());
  };
  std::string c10 = cl("c10",
                       "namespace c10 { __declspec(dllexport) int kept() { return 1; } }\n"
                       "namespace torch { namespace stable { __declspec(dllexport) int shim() { return 2; } } }\n",
                       "/out:c10.dll /implib:c10.lib");
  auto ext = [&](const std::string& name, const std::string& body) {
    return cl(name,
              "namespace c10 { __declspec(dllimport) int kept(); }\n"
              "namespace torch { namespace stable { __declspec(dllimport) int shim(); } }\n"
              "extern \"C\" __declspec(dllexport) int PyInit__C() { return " +
                  body + "; }\n",
              "c10.lib /out:" + name + ".dll");
  };
  auto wheel = [&](const std::string& bytes) {
    WheelBuilder w("wext", "1.0", "cp312-cp312-win_amd64");
    w.purelib(false).add("wext/_C.pyd", bytes).requires_dist("torch>=2.10");
    return w;
  };
  WheelBuilder t("torch", "2.15.0", "cp312-cp312-win_amd64");
  t.purelib(false).add("torch/lib/c10.dll", c10);
  WheelBuilder unstable = wheel(ext("u", "c10::kept()")), stable = wheel(ext("s", "torch::stable::shim()"));
  auto f = judge({&unstable, &t});
  EXPECT_TRUE(says(f, "WC515 [warning] wext/_C.pyd: uses torch's unstable C++ ABI (1 symbol, first ?kept@c10@@YAHXZ"))
      << dump_of(f);
  EXPECT_TRUE(says(f, "torch 2.15.0 of the run defines all 1 of them")) << dump_of(f);
  auto g = judge({&stable, &t});
  EXPECT_FALSE(testing::has_rule(g, "WC515")) << dump_of(g);
}

// What `import torch` loads reaches further than torch's own needs: its libcusparse-like library
// loads an nvjitlink-like one from another wheel, and a library needing that soname later binds
// the copy in the process (bitsandbytes' _cuda130.so and libnvJitLink.so.13 beside torch 2.15.0).
TEST_F(Loader, WhatTheImportLoadsTransitivelyIsInTheProcess) {
  std::string jit = so("libjit.so", "int jit(void){return 1;}", "-Wl,-soname,libnvJitLink.so.13");
  std::string sparse = so("libsparse.so", "int jit(void); int sp(void){return jit();}",
                          "-Wl,-soname,libcusparse.so.12 " + with("libjit.so") + " -Wl,-rpath,'$ORIGIN/../../jit/lib'");
  std::string torch_cuda =
      so("libtorch_cuda.so", "int sp(void); int tc(void){return sp();}",
         "-Wl,-soname,libtorch_cuda.so " + with("libsparse.so") + " -Wl,-rpath,'$ORIGIN/../../nvidia/sparse/lib'");
  WheelBuilder t("torch", "2.15.0", kTag);
  t.purelib(false).add("torch/__init__.py", "").add("torch/lib/libtorch_cuda.so", torch_cuda);
  t.requires_dist("nvidia-sparse==1.0").requires_dist("nvidia-jit==1.0");
  WheelBuilder sp("nvidia-sparse", "1.0", "py3-none-manylinux_2_28_x86_64");
  sp.purelib(false).add("nvidia/sparse/lib/libcusparse.so.12", sparse);
  WheelBuilder jw("nvidia-jit", "1.0", "py3-none-manylinux_2_28_x86_64");
  jw.purelib(false).add("nvidia/jit/lib/libnvJitLink.so.13", jit);
  WheelBuilder b("bnb", "1.0", "py3-none-manylinux_2_24_x86_64");
  b.purelib(false)
      .add("bnb/libbnb_cuda130.so", so("libbnb.so", "int jit(void); int k(void){return jit();}", with("libjit.so")))
      .requires_dist("torch");
  auto f = judge({&b, &t, &sp, &jw});
  EXPECT_FALSE(testing::has_rule(f, "WC503")) << dump_of(f);
  auto alone = judge({&b, &t});  // without the wheels torch's import loads: a candidate of CUDA 13
  EXPECT_TRUE(says(alone, "needs libnvJitLink.so.13, of CUDA 13")) << dump_of(alone);
  EXPECT_FALSE(has_errors(alone)) << dump_of(alone);
}

// CUDA 13's math libraries keep sonames of their own majors (libcufft.so.12, libcusolver.so.12,
// libcusparse.so.12: torch 2.15.0's libtorch_cuda.so needs them), so cuda-toolkit==13.2.2 provides
// them; a CUDA 12 pin provides libcusparse.so.12 (CUDA 12 ships it too), never libcufft.so.12.
TEST_F(Loader, CudaMathLibrariesKeepTheirOwnSonameMajors) {
  so("libfft.so", "int fft(void){return 1;}", "-Wl,-soname,libcufft.so.12");
  so("libsolver.so", "int sol(void){return 1;}", "-Wl,-soname,libcusolver.so.12");
  so("libsparse.so", "int sp(void){return 1;}", "-Wl,-soname,libcusparse.so.12");
  std::string cuda =
      so("libtorch_cuda.so", "int fft(void); int sol(void); int sp(void); int tc(void){return fft()+sol()+sp();}",
         "-Wl,-soname,libtorch_cuda.so " + with("libfft.so") + " " + with("libsolver.so") + " " + with("libsparse.so"));
  std::string ext = so("_C.so", "int tc(void); int PyInit__C(void){return tc();}",
                       with("libtorch_cuda.so") + " -Wl,-rpath,'$ORIGIN/lib'");
  auto torch = [&](const std::string& pin) {
    WheelBuilder t("torch", "2.15.0", kTag);
    t.purelib(false)
        .add("torch/__init__.py", "")
        .add("torch/lib/libtorch_cuda.so", cuda)
        .add("torch/_C.cpython-312-x86_64-linux-gnu.so", ext)
        .requires_dist("cuda-toolkit[cufft,cusolver,cusparse]" + pin);
    return t;
  };
  WheelBuilder t13 = torch("==13.2.2"), t12 = torch("==12.9.1");
  auto f13 = judge({&t13});
  EXPECT_FALSE(has_errors(f13)) << dump_of(f13);
  EXPECT_TRUE(says(f13,
                   "libcufft.so.12, libcusolver.so.12, libcusparse.so.12 (needed by 1 binary) come from the "
                   "dependency cuda-toolkit"))
      << dump_of(f13);
  auto f12 = judge({&t12});
  EXPECT_TRUE(says(f12, "libcusparse.so.12 (needed by 1 binary) come from the dependency cuda-toolkit"))
      << dump_of(f12);
  EXPECT_TRUE(says(f12,
                   "WC503 [error] torch/lib/libtorch_cuda.so: needs libcufft.so.12, libcusolver.so.12, which are "
                   "not found"))
      << dump_of(f12);
}

// RPATH entries that climb out of site-packages but stay in the environment's prefix (torch/_C.so's
// $ORIGIN/../../nvidia/cudnn/lib is lib/python3.12/nvidia/cudnn/lib) searched before the wheel's own
// copy: a warning; the same library searched first in a folder outside the environment: an error.
TEST_F(Loader, SearchPathsInsideTheEnvironmentPrefixAreWarnings) {
  std::string py = so("libpy.so", "int py(void){return 1;}", "-Wl,-soname,libtorch_python.so");
  auto ext = [&](const std::string& rpath) {
    WheelBuilder w("torch", "2.15.0", kTag);
    w.purelib(false)
        .add("torch/lib/libtorch_python.so", py)
        .add("torch/_C.cpython-312-x86_64-linux-gnu.so",
             so("_C" + std::to_string(rpath.size()) + ".so", "int py(void); int PyInit__C(void){return py();}",
                with("libpy.so") + " -Wl,--disable-new-dtags -Wl,-rpath,'" + rpath + "'"));
    return w;
  };
  WheelBuilder inside = ext("$ORIGIN/../../nvidia/cudnn/lib:$ORIGIN/lib"),
               outside = ext("$ORIGIN/../../../../../../opt/lib:$ORIGIN/lib"),
               dead = ext("$ORIGIN/lib:/opt/cuda/lib64");
  auto in = judge({&inside});
  EXPECT_TRUE(says(in,
                   "WC504 [warning] torch/_C.cpython-312-x86_64-linux-gnu.so: RPATH/RUNPATH entries outside "
                   "site-packages: $ORIGIN/../../nvidia/cudnn/lib (outside site-packages); the loader searches "
                   "them for libtorch_python.so (before $ORIGIN/lib, where the run's copy is) first"))
      << dump_of(in);
  auto out = judge({&outside});
  EXPECT_TRUE(says(out,
                   "WC504 [error] torch/_C.cpython-312-x86_64-linux-gnu.so: RPATH/RUNPATH entries outside the "
                   "install tree: $ORIGIN/../../../../../../opt/lib (outside site-packages); the loader searches "
                   "them for libtorch_python.so"))
      << dump_of(out);
  auto d = judge({&dead});
  EXPECT_TRUE(says(d,
                   "WC504 [warning] torch/_C.cpython-312-x86_64-linux-gnu.so: dead RPATH/RUNPATH entries outside "
                   "the install tree: /opt/cuda/lib64 (absolute)"))
      << dump_of(d);
}

// library_file() remembers what the import put in the process once per need for an install set
// (InstallSet::preloaded): every binary of the set, asked for every need the set names and some it
// does not, in two orders and twice, must get what the set without the memory answers. The chain
// reaches past torch's own libraries (libtorch.so -> libdep.so.1 in nvidia-dep -> libdeeper.so.2
// beside it), so the answers differ by need, and the extension is not torch's, so it is asked.
TEST_F(Loader, PreloadedLibrariesAreRememberedByNeedAlone) {
  std::string deeper = so("libdeeper.so.2", "int deeper(void){return 2;}", "-Wl,-soname,libdeeper.so.2");
  std::string dep = so("libdep.so.1", "int deeper(void); int dep(void){return deeper();}",
                       "-Wl,-soname,libdep.so.1 " + with("libdeeper.so.2") + " -Wl,-rpath,'$ORIGIN'");
  std::string torch_lib =
      so("libtorch.so", "int dep(void); int t(void){return dep();}",
         "-Wl,-soname,libtorch.so " + with("libdep.so.1") + " -Wl,-rpath,'$ORIGIN/../../nvidia/dep/lib'");
  std::string ext = so("_ext.so", "int t(void); int deeper(void); int e(void){return t() + deeper();}",
                       with("libtorch.so") + " " + with("libdeeper.so.2"));
  WheelBuilder t = torch("2.15.0", kNewC10);
  t.add("torch/lib/libtorch.so", torch_lib).requires_dist("nvidia-dep");
  WheelBuilder d("nvidia-dep", "1.0", "py3-none-manylinux_2_28_x86_64");
  d.purelib(false).add("nvidia/dep/lib/libdep.so.1", dep).add("nvidia/dep/lib/libdeeper.so.2", deeper);
  WheelBuilder w("ext", "1.0", kTag);
  w.purelib(false).add("ext/_ext.cpython-312-x86_64-linux-gnu.so", ext).requires_dist("torch");
  std::vector<WheelFacts> run;
  for (const WheelBuilder* b : {&w, &t, &d}) run.push_back(testing::facts_of(b->build(), b->filename()));
  Policy p = load_policy("default");
  InstallSet plain;
  for (const auto& f : run) plain.wheels.push_back(&f);
  std::vector<std::string> needs = {"libc.so.6", "libabsent.so.3", "libtorch.so"};
  std::vector<std::pair<const WheelFacts*, const BinaryFacts*>> binaries;
  for (const auto& f : run)
    for (const auto& b : f.binaries) {
      binaries.emplace_back(&f, &b);
      needs.insert(needs.end(), b.needed.begin(), b.needed.end());
    }
  ASSERT_EQ(binaries.size(), 5u);
  auto text = [](const std::optional<LibraryFile>& l) {
    return l ? l->path + " in " + l->wheel->filename.canonical_name + (l->binary ? " (parsed)" : "") : "nowhere";
  };
  std::map<std::string, std::string> expected;
  for (const auto& [f, b] : binaries)
    for (const auto& n : needs) expected[b->path + " needs " + n] = text(library_file(*b, n, plain, p.cuda));
  EXPECT_EQ(expected["ext/_ext.cpython-312-x86_64-linux-gnu.so needs libdeeper.so.2"],
            "nvidia/dep/lib/libdeeper.so.2 in nvidia-dep (parsed)")
      << "in the process after import torch, though the extension's own search path does not reach it";
  EXPECT_EQ(expected["ext/_ext.cpython-312-x86_64-linux-gnu.so needs libdep.so.1"],
            "nvidia/dep/lib/libdep.so.1 in nvidia-dep (parsed)");
  for (int order = 0; order < 2; ++order) {
    InstallSet remembering = plain;
    remembering.preloaded = std::make_shared<PreloadedLibraries>();
    for (int pass = 0; pass < 2; ++pass)
      for (size_t k = 0; k < binaries.size(); ++k) {
        const BinaryFacts& b = *binaries[order ? binaries.size() - 1 - k : k].second;
        for (size_t m = 0; m < needs.size(); ++m) {
          const std::string& n = needs[order ? needs.size() - 1 - m : m];
          EXPECT_EQ(text(library_file(b, n, remembering, p.cuda)), expected[b.path + " needs " + n])
              << b.path << " needs " << n << ", order " << order << ", pass " << pass;
        }
      }
  }
}

}  // namespace
}  // namespace wc
