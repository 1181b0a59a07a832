// WC514 (every undefined symbol binds), WC515 (PyTorch's ABI) and WC516 (one copy of a runtime),
// on libraries gcc builds here. Each WC514 case is also installed into a directory and loaded for
// real: a child python3 opens what the package's import would have loaded, then the extension with
// RTLD_NOW, and the loader's verdict must equal wheelcheck's (the dynamic loader is the oracle).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <set>

#include "binary/binary_facts.h"
#include "binary/dynamic_symbols.h"
#include "binary/elf_reader.h"
#include "pipeline/check.h"
#include "policy/policy.h"
#include "rules/loader/torch_abi.h"
#include "support/test_support.h"
#include "util/strings.h"
#include "wheel_builder.h"

namespace wc {
namespace {

using testing::run_command;
using testing::shell_quote;
using testing::WheelBuilder;

const char* kExt = "ext/_ext.cpython-312-x86_64-linux-gnu.so";
const char* kTag = "cp312-cp312-manylinux_2_28_x86_64";

struct Package {
  std::string name, version, tag = "py3-none-manylinux_2_28_x86_64";
  std::vector<std::pair<std::string, std::string>> files;  // install path -> bytes
  std::vector<std::string> requires_dist;
};

class Link : public ::testing::Test {
 protected:
  testing::TempDir dir;
  int built = 0;

  // A shared library from C source, linked with `flags` (-L is this directory).
  std::string lib(const std::string& name, const std::string& src, const std::string& flags = "") {
    std::string c = dir.file(name + ".c");
    testing::write_file(c, std::vector<uint8_t>(src.begin(), src.end()));
    auto r = run_command("gcc -O1 -shared -fPIC " + shell_quote(c) + " -o " + shell_quote(dir.file(name)) + " -L" +
                         shell_quote(dir.path()) + " " + flags);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    auto b = testing::read_file(dir.file(name));
    return std::string(b.begin(), b.end());
  }
  std::string file(const std::string& name) { return dir.file(name); }
  // A Windows DLL (or .pyd) from C source: clang for x86_64-pc-windows-msvc, then lld-link with
  // `link` in this directory (no CRT, no entry point).
  void windows_dll(const std::string& name, const std::string& src, const std::string& link) {
    std::string c = script(name + ".c", src);
    auto r = run_command("clang --target=x86_64-pc-windows-msvc -c " + shell_quote(c) + " -o " +
                         shell_quote(file(name + ".obj")) + " && cd " + shell_quote(dir.path()) +
                         " && lld-link /dll /noentry /nodefaultlib " + link + " " + name + ".obj");
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  }
  std::string script(const std::string& name, const std::string& text) {
    testing::write_file(dir.file(name), std::vector<uint8_t>(text.begin(), text.end()));
    return dir.file(name);
  }

  // wheelcheck's verdict on the extension wheel (the first package) with the others in the run,
  // the same over whole facts and over the facts a run keeps for the install-set rules.
  std::vector<Finding> judge(const std::vector<Package>& pkgs, const std::string& policy = "default") {
    std::vector<std::pair<std::vector<uint8_t>, std::string>> wheels;
    for (const auto& p : pkgs) {
      WheelBuilder w(p.name, p.version, p.tag);
      w.purelib(false);
      for (const auto& r : p.requires_dist) w.requires_dist(r);
      for (const auto& [path, bytes] : p.files) w.add(path, bytes);
      wheels.emplace_back(w.build(), w.filename());
    }
    return testing::judge_first_of_run(wheels, load_policy(policy));
  }

  // The loader's verdict: the packages installed into one site-packages, `preload` opened first as
  // an import would (each "path" RTLD_LOCAL, "+path" RTLD_GLOBAL), then the extension RTLD_NOW.
  // Returns "" when it loads, else the loader's message.
  std::string load(const std::vector<Package>& pkgs, const std::vector<std::string>& preload = {}) {
    std::string site = dir.file("site" + std::to_string(++built));
    for (const auto& p : pkgs)
      for (const auto& [path, bytes] : p.files) {
        std::filesystem::create_directories(std::filesystem::path(site + "/" + path).parent_path());
        testing::write_file(site + "/" + path, std::vector<uint8_t>(bytes.begin(), bytes.end()));
      }
    std::string py =
        "import ctypes, os, sys\n"
        "site = sys.argv[1]\n"
        "try:\n"
        "    for p in sys.argv[2:]:\n"
        "        g = p.startswith('+')\n"
        "        ctypes.CDLL(os.path.join(site, p.lstrip('+')), mode=os.RTLD_NOW | (os.RTLD_GLOBAL if g else 0))\n"
        "    ctypes.CDLL(os.path.join(site, '" +
        std::string(kExt) +
        "'), mode=os.RTLD_NOW)\n"
        "except OSError as e:\n"
        "    print(e); sys.exit(1)\n";
    std::string cmd = "python3 " + shell_quote(script("load.py", py)) + " " + shell_quote(site);
    for (const auto& p : preload) cmd += " " + shell_quote(p);
    auto r = run_command(cmd);
    return r.exit_code == 0 ? "" : r.out + r.err;
  }

  // Both verdicts, which must agree; returns the loader's message ("" when it loads).
  std::string both(const std::vector<Package>& pkgs, const std::vector<std::string>& preload = {},
                   std::vector<Finding>* out = nullptr) {
    auto fs = judge(pkgs);
    std::string loader = load(pkgs, preload);
    bool predicted_fail = false;
    for (const auto& f : fs)
      if (f.rule == "WC514" && f.entry == kExt && f.severity == Severity::error) predicted_fail = true;
    EXPECT_EQ(predicted_fail, !loader.empty()) << "loader: " << (loader.empty() ? "loads" : loader) << "\n"
                                               << testing::dump(fs);
    if (out) *out = fs;
    return loader;
  }

  Package ext(const std::string& bytes, std::vector<std::string> requires_dist = {}) {
    return {"ext", "1.0", kTag, {{kExt, bytes}}, std::move(requires_dist)};
  }
};

using testing::says;

// Provider v1 lacks what the extension (built against v2) calls: undefined symbol.
TEST_F(Link, ExtensionNeedsWhatOnlyTheNewerProviderDefines) {
  std::string v1 = lib("libprov.so.1", "int f1(void){return 1;}", "-Wl,-soname,libprov.so.1");
  std::string v2 = lib("libprov.so.1", "int f1(void){return 1;} int f2(void){return 2;}", "-Wl,-soname,libprov.so.1");
  std::string e = lib("_ext.so", "int f2(void); void* PyInit__ext(void){ return (void*)(long)f2(); }",
                      "-Wl,--no-as-needed " + shell_quote(file("libprov.so.1")) + " -Wl,-rpath,'$ORIGIN/../prov'");
  Package with_v2{"prov", "2.0", "py3-none-manylinux_2_28_x86_64", {{"prov/libprov.so.1", v2}}, {}};
  Package with_v1{"prov", "1.0", "py3-none-manylinux_2_28_x86_64", {{"prov/libprov.so.1", v1}}, {}};
  EXPECT_EQ(both({ext(e), with_v2}), "");
  std::vector<Finding> fs;
  std::string msg = both({ext(e), with_v1}, {}, &fs);
  EXPECT_NE(msg.find("undefined symbol: f2"), std::string::npos) << msg;
  EXPECT_TRUE(says(fs, "1 undefined symbol resolve nowhere the loader looks: f2; looked in libprov.so.1 from prov 1.0"))
      << testing::dump(fs);
}

// A wheel whose library defines 20,000 symbols or more settles on two threads when its read had
// them (its rules and the slimmed tables on one, its report item on the other): at -j 4 for these
// two wheels, not at -j 2 (a thread each). The run's items, findings and release records must be
// those of one thread. The provider's two libraries are slimmed apart and each must get its own
// table back: the extension needs only the big one, binds f5 and f20050 there, and only `absent`
// stays unresolved.
TEST_F(Link, ASymbolHeavyWheelSettlesAsOnOneThread) {
  std::string src = "int f0(void){return 0;}\n";
  for (int i = 1; i < 20100; ++i) src += "int f" + std::to_string(i) + "(void) __attribute__((alias(\"f0\")));\n";
  std::string big = lib("libbig.so", src, "-Wl,-soname,libbig.so");
  std::string small = lib("libsmall.so", "int g(void){return 7;}", "-Wl,-soname,libsmall.so");
  std::string e = lib("_ext.so",
                      "int f5(void); int f20050(void); int absent(void);\n"
                      "void* PyInit__ext(void){ return (void*)(long)(f5() + f20050() + absent()); }",
                      "-Wl,--no-as-needed " + shell_quote(file("libbig.so")) + " -Wl,-rpath,'$ORIGIN/../prov'");
  std::string wheels = dir.file("wheels");
  std::filesystem::create_directories(wheels);
  WheelBuilder("ext", "1.0", kTag).purelib(false).requires_dist("prov").add(kExt, e).write(wheels);
  WheelBuilder("prov", "1.0", "py3-none-manylinux_2_28_x86_64")
      .purelib(false)
      .add("prov/libbig.so", big)
      .add("prov/libsmall.so", small)
      .add_unrecorded("prov/stray.txt", "not in RECORD")  // a finding of the provider's own rules
      .write(wheels);
  Policy p = load_policy("default");
  auto run = [&](unsigned jobs) {
    CheckRequest req;
    req.targets = {wheels};
    req.jobs = jobs;
    std::vector<std::string> out;
    for (const auto& item : run_check(req, p).items) {
      out.push_back(item.path + (item.pass() ? " pass" : " fail"));
      for (const auto& f : item.findings) out.push_back(f.rule + " " + f.entry + ": " + f.message);
      out.push_back(item.release.get().dump());
    }
    return out;
  };
  auto one = run(1);
  std::string all = join(one, "\n");
  EXPECT_NE(all.find("1 undefined symbol resolve nowhere the loader looks: absent; looked in libbig.so from prov 1.0"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("prov/stray.txt"), std::string::npos) << all;
  EXPECT_TRUE(all.find("\"count\":20100") != std::string::npos || all.find("\"count\":20101") != std::string::npos)
      << "the big library's exports are in its release record";
  EXPECT_EQ(run(2), one);
  EXPECT_EQ(run(4), one);
}

// A versioned reference binds only a definition of that version; a version need the file does
// not define refuses the file before any symbol.
TEST_F(Link, SymbolVersionsBindAsTheLoaderBindsThem) {
  script("v2.map", "PROV_1 { global: f; g; local: *; };\nPROV_2 { global: f; } PROV_1;\n");
  script("v1.map", "PROV_1 { global: f; g; local: *; };\n");
  script("v1b.map", "PROV_1 { global: f; local: *; };\nPROV_2 { global: g; } PROV_1;\n");
  // v2: f@PROV_1 (hidden, kept for old binaries) and f@@PROV_2
  std::string v2 = lib("libver.so.1",
                       "int f_old(void){return 1;} int f_new(void){return 2;} int g(void){return 3;}\n"
                       "__asm__(\".symver f_old,f@PROV_1\"); __asm__(\".symver f_new,f@@PROV_2\");",
                       "-Wl,-soname,libver.so.1 -Wl,--version-script," + shell_quote(file("v2.map")));
  std::string e = lib("_ext.so", "int f(void); void* PyInit__ext(void){ return (void*)(long)f(); }",
                      "-Wl,--no-as-needed " + shell_quote(file("libver.so.1")) + " -Wl,-rpath,'$ORIGIN/../ver'");
  BinaryFacts facts;
  auto eb = testing::read_file(file("_ext.so"));
  parse_elf_image(eb.data(), eb.size(), facts);
  ASSERT_TRUE(facts.symbols);
  ASSERT_EQ(facts.version_needs["libver.so.1"], std::vector<std::string>{"PROV_2"});
  auto pkg = [](const std::string& v, const std::string& bytes) {
    return Package{"ver", v, "py3-none-manylinux_2_28_x86_64", {{"ver/libver.so.1", bytes}}, {}};
  };
  EXPECT_EQ(both({ext(e), pkg("2.0", v2)}), "");
  // v1 has no PROV_2 node at all: the version need fails.
  std::string v1 = lib("libver.so.1", "int f(void){return 1;} int g(void){return 3;}",
                       "-Wl,-soname,libver.so.1 -Wl,--version-script," + shell_quote(file("v1.map")));
  std::vector<Finding> fs;
  std::string msg = both({ext(e), pkg("1.0", v1)}, {}, &fs);
  EXPECT_NE(msg.find("version `PROV_2' not found"), std::string::npos) << msg;
  EXPECT_TRUE(says(fs, "needs version PROV_2 of libver.so.1 (ver 1.0)")) << testing::dump(fs);
  // v1b has PROV_2, but f only at PROV_1: right name, wrong version.
  std::string v1b = lib("libver.so.1", "int f(void){return 1;} int g(void){return 3;}",
                        "-Wl,-soname,libver.so.1 -Wl,--version-script," + shell_quote(file("v1b.map")));
  msg = both({ext(e), pkg("1.1", v1b)}, {}, &fs);
  EXPECT_NE(msg.find("undefined symbol: f, version PROV_2"), std::string::npos) << msg;
  EXPECT_TRUE(says(fs, "f@PROV_2")) << testing::dump(fs);
  // An old extension (built against v1's f@@PROV_1) still binds v2's hidden f@PROV_1.
  lib("libver.so.1", "int f(void){return 1;} int g(void){return 3;}",
      "-Wl,-soname,libver.so.1 -Wl,--version-script," + shell_quote(file("v1.map")));
  std::string old = lib("_ext.so", "int f(void); void* PyInit__ext(void){ return (void*)(long)f(); }",
                        "-Wl,--no-as-needed " + shell_quote(file("libver.so.1")) + " -Wl,-rpath,'$ORIGIN/../ver'");
  EXPECT_EQ(both({ext(old), pkg("2.0", v2)}), "");
}

// Weak references may stay unbound; hidden definitions bind nothing, protected ones do.
TEST_F(Link, WeakReferencesAndVisibility) {
  lib("libvis.so", "int p(void){return 1;} int h(void){return 2;}", "-Wl,-soname,libvis.so");
  std::string weak = lib("_ext.so",
                         "int p(void); extern int w(void) __attribute__((weak));\n"
                         "void* PyInit__ext(void){ return (void*)(long)(p() + (w ? w() : 0)); }",
                         "-Wl,--no-as-needed " + shell_quote(file("libvis.so")) + " -Wl,-rpath,'$ORIGIN/../vis'");
  std::string real = lib("libvis.so",
                         "__attribute__((visibility(\"protected\"))) int p(void){return 1;}\n"
                         "__attribute__((visibility(\"hidden\"))) int h(void){return 2;} int keep(void){return h();}",
                         "-Wl,-soname,libvis.so");
  Package vis{"vis", "1.0", "py3-none-manylinux_2_28_x86_64", {{"vis/libvis.so", real}}, {}};
  EXPECT_EQ(both({ext(weak), vis}), "");  // protected p binds, weak w may be absent
  lib("libvis.so", "int p(void){return 1;} int h(void){return 2;}", "-Wl,-soname,libvis.so");
  std::string uses_h = lib("_ext.so", "int h(void); void* PyInit__ext(void){ return (void*)(long)h(); }",
                           "-Wl,--no-as-needed " + shell_quote(file("libvis.so")) + " -Wl,-rpath,'$ORIGIN/../vis'");
  std::string msg = both({ext(uses_h), vis});
  EXPECT_NE(msg.find("undefined symbol: h"), std::string::npos) << msg;
}

// The lookup scope is the whole DT_NEEDED closure, breadth first: a symbol only a transitive
// dependency defines binds; the first definition in the closure is taken, and one of the wrong
// version is passed over for a later one of the right version.
TEST_F(Link, TransitiveDependenciesAndFirstDefinition) {
  std::string b = lib("libb.so", "int deep(void){return 7;}", "-Wl,-soname,libb.so");
  std::string a =
      lib("liba.so", "int shallow(void){return 1;}",
          "-Wl,-soname,liba.so -Wl,--no-as-needed " + shell_quote(file("libb.so")) + " -Wl,-rpath,'$ORIGIN'");
  std::string e =
      lib("_ext.so",
          "int deep(void); int shallow(void); void* PyInit__ext(void){ return (void*)(long)(deep()+shallow()); }",
          "-Wl,--no-as-needed " + shell_quote(file("liba.so")) + " -Wl,-rpath,'$ORIGIN/../dep'");
  Package dep{"dep", "1.0", "py3-none-manylinux_2_28_x86_64", {{"dep/liba.so", a}, {"dep/libb.so", b}}, {}};
  EXPECT_EQ(both({ext(e), dep}), "");
  std::string b_without = lib("libb.so", "int other(void){return 7;}", "-Wl,-soname,libb.so");
  Package dep2{"dep", "2.0", "py3-none-manylinux_2_28_x86_64", {{"dep/liba.so", a}, {"dep/libb.so", b_without}}, {}};
  std::string msg = both({ext(e), dep2});
  EXPECT_NE(msg.find("undefined symbol: deep"), std::string::npos) << msg;

  // Two providers define `x`: one at version X_1, one at X_2; the extension wants X_2.
  script("x1.map", "X_1 { global: x; local: *; };\n");
  script("x2.map", "X_2 { global: x; local: *; };\n");
  std::string first = lib("libfirst.so", "int x(void){return 1;}",
                          "-Wl,-soname,libfirst.so -Wl,--version-script," + shell_quote(file("x1.map")));
  std::string second = lib("libsecond.so", "int x(void){return 2;}",
                           "-Wl,-soname,libsecond.so -Wl,--version-script," + shell_quote(file("x2.map")));
  std::string wants2 = lib("_ext.so", "int x(void); void* PyInit__ext(void){ return (void*)(long)x(); }",
                           "-Wl,--no-as-needed " + shell_quote(file("libfirst.so")) + " " +
                               shell_quote(file("libsecond.so")) + " -Wl,-rpath,'$ORIGIN/../two'");
  BinaryFacts facts;
  auto wb = testing::read_file(file("_ext.so"));
  parse_elf_image(wb.data(), wb.size(), facts);
  ASSERT_EQ(facts.needed, (std::vector<std::string>{"libfirst.so", "libsecond.so", "libc.so.6"}));
  Package two{
      "two", "1.0", "py3-none-manylinux_2_28_x86_64", {{"two/libfirst.so", first}, {"two/libsecond.so", second}}, {}};
  EXPECT_EQ(both({ext(wants2), two}), "");
}

// A library the package's import already loaded binds by soname with no search path to it, and
// what it opened RTLD_GLOBAL serves every later library (torch: libtorch_global_deps.so).
TEST_F(Link, LibrariesThePackageImportAlreadyLoaded) {
  std::string gdep =
      lib("libtorch_global_deps.so", "int from_global(void){return 3;}", "-Wl,-soname,libtorch_global_deps.so");
  std::string c10 = lib("libc10.so", "int c10_thing(void){return 1;}", "-Wl,-soname,libc10.so");
  Package torch{"torch",
                "2.99.0",
                "cp312-cp312-manylinux_2_28_x86_64",
                {{"torch/lib/libc10.so", c10}, {"torch/lib/libtorch_global_deps.so", gdep}},
                {}};
  const std::vector<std::string> import_torch{"+torch/lib/libtorch_global_deps.so", "torch/lib/libc10.so"};
  std::string e = lib("_ext.so",
                      "int c10_thing(void); int from_global(void);\n"
                      "void* PyInit__ext(void){ return (void*)(long)(c10_thing() + from_global()); }",
                      "-Wl,--no-as-needed " + shell_quote(file("libc10.so")));  // no RPATH
  EXPECT_EQ(both({ext(e, {"torch==2.99.*"}), torch}, import_torch), "");
  std::string missing = lib("_ext.so",
                            "int c10_thing(void); int c10_gone(void);\n"
                            "void* PyInit__ext(void){ return (void*)(long)(c10_thing() + c10_gone()); }",
                            "-Wl,--no-as-needed " + shell_quote(file("libc10.so")));
  std::vector<Finding> fs;
  std::string msg = both({ext(missing, {"torch==2.99.*"}), torch}, import_torch, &fs);
  EXPECT_NE(msg.find("undefined symbol: c10_gone"), std::string::npos) << msg;
  EXPECT_TRUE(says(fs, "libc10.so") && says(fs, "from torch 2.99.0")) << testing::dump(fs);
  // Without torch's wheel in the run, what libc10.so defines is unknown: nothing is claimed.
  auto alone = judge({ext(missing, {"torch==2.99.*"})});
  EXPECT_FALSE(says(alone, "WC514")) << testing::dump(alone);
}

// What torch's import preloads is what torch's own libraries load (libtorch_cuda.so of a CUDA 13
// torch: libcudart.so.13), not every soname its providers row matches: an extension needing
// libcudart.so.12 with no search path to it fails beside a cu13 torch, wherever a cu12 runtime is
// installed (WC503, against the loader).
TEST_F(Link, TorchPreloadsWhatItBringsInOnly) {
  std::string rt13 = lib("libcudart.so.13", "int cudaGetDeviceCount13(void){return 0;}", "-Wl,-soname,libcudart.so.13");
  std::string rt12 = lib("libcudart.so.12", "int cudaGetDeviceCount12(void){return 0;}", "-Wl,-soname,libcudart.so.12");
  std::string cuda =
      lib("libtorch_cuda.so", "int cudaGetDeviceCount13(void); int t(void){return cudaGetDeviceCount13();}",
          "-Wl,-soname,libtorch_cuda.so -Wl,--no-as-needed " + shell_quote(file("libcudart.so.13")) +
              " -Wl,-rpath,'$ORIGIN/../../nvidia/cu13/lib'");
  Package torch{"torch", "2.99.0", kTag, {{"torch/lib/libtorch_cuda.so", cuda}}, {"nvidia-cuda-runtime"}};
  Package cu13{
      "nvidia-cuda-runtime", "13.0", "py3-none-manylinux_2_28_x86_64", {{"nvidia/cu13/lib/libcudart.so.13", rt13}}, {}};
  Package cu12{"nvidia-cuda-runtime-cu12",
               "12.9",
               "py3-none-manylinux_2_28_x86_64",
               {{"nvidia/cuda_runtime/lib/libcudart.so.12", rt12}},
               {}};
  const std::vector<std::string> import_torch{"torch/lib/libtorch_cuda.so"};
  auto check = [&](const std::string& soname, const std::string& fn) {
    std::string e = lib("_ext.so", "int " + fn + "(void); void* PyInit__ext(void){ return (void*)(long)" + fn + "(); }",
                        "-Wl,--no-as-needed " + shell_quote(file(soname)));
    std::vector<Package> run{ext(e, {"torch", "nvidia-cuda-runtime-cu12"}), torch, cu13, cu12};
    auto fs = judge(run);
    std::string loader = load(run, import_torch);
    bool predicted = says(fs, "WC503 [error] " + std::string(kExt)) || says(fs, "WC514 [error] " + std::string(kExt));
    EXPECT_EQ(predicted, !loader.empty()) << loader << testing::dump(fs);
    return loader;
  };
  EXPECT_EQ(check("libcudart.so.13", "cudaGetDeviceCount13"), "");
  EXPECT_NE(check("libcudart.so.12", "cudaGetDeviceCount12").find("libcudart.so.12"), std::string::npos);
}

// torch alone: its libraries need the CUDA runtime its declared cuda-toolkit[cudart] brings (a
// providers row of an extra), whose wheel is not in the run: expected from there, so nothing that
// loads them is said to fail (torch 2.15.0 got ten WC514 errors before extras' rows were read).
TEST_F(Link, LibrariesADeclaredDependencyBringsAreNotMissing) {
  lib("libcudart.so.13", "int cudaFree(void){return 0;}", "-Wl,-soname,libcudart.so.13");
  std::string deps =
      lib("libtorch_global_deps.so", "int g(void){return 1;}",
          "-Wl,-soname,libtorch_global_deps.so -Wl,--no-as-needed " + shell_quote(file("libcudart.so.13")));
  std::string c =
      lib("_C.so", "int g(void); void* PyInit__C(void){ return (void*)(long)g(); }",
          "-Wl,--no-as-needed " + shell_quote(file("libtorch_global_deps.so")) + " -Wl,-rpath,'$ORIGIN/lib'");
  Package torch{"torch",
                "2.99.0",
                kTag,
                {{"torch/_C.cpython-312-x86_64-linux-gnu.so", c}, {"torch/lib/libtorch_global_deps.so", deps}},
                {"cuda-toolkit[cudart]==13.0.2; platform_system == \"Linux\""}};
  auto fs = judge({torch});
  EXPECT_FALSE(says(fs, "WC514")) << testing::dump(fs);
  EXPECT_TRUE(says(fs, "come from the dependency cuda-toolkit")) << testing::dump(fs);
}

// What the run has no file for is taken on trust where the loader finds it on any system: glibc
// references by version, the interpreter's C API by name.
TEST_F(Link, SystemLibrariesAndTheInterpreter) {
  std::string e = lib("_ext.so",
                      "#include <string.h>\n#include <math.h>\nextern void* PyLong_FromLong(long);\n"
                      "void* PyInit__ext(void){ static char b[8]; memcpy(b, \"x\", 2); return "
                      "PyLong_FromLong((long)sqrt((double)strlen(b))); }",
                      "-lm");
  EXPECT_EQ(both({ext(e)}), "");
  // An unversioned name no library defines fails, even beside glibc (which versions every export).
  std::string bad = lib(
      "_ext.so", "extern int nowhere_defined(void); void* PyInit__ext(void){ return (void*)(long)nowhere_defined(); }");
  std::string msg = both({ext(bad)});
  EXPECT_NE(msg.find("undefined symbol: nowhere_defined"), std::string::npos) << msg;
}

// A binary whose library is missing is WC503's, not reported twice; a library nothing loads is a
// warning.
TEST_F(Link, MissingLibrariesAreNotReportedTwice) {
  lib("libgone.so", "int gone(void){return 1;}", "-Wl,-soname,libgone.so");
  std::string e =
      lib("_ext.so", "int gone(void); int also(void); void* PyInit__ext(void){ return (void*)(long)(gone()+also()); }",
          "-Wl,--no-as-needed " + shell_quote(file("libgone.so")));
  auto fs = judge({ext(e)});
  EXPECT_TRUE(says(fs, "WC503 [error]")) << testing::dump(fs);
  EXPECT_FALSE(says(fs, "WC514")) << testing::dump(fs);
  std::string orphan = lib("libplugin.so", "int also(void); int plug(void){return also();}", "");
  Package plugin{"plug",
                 "1.0",
                 kTag,
                 {{"plug/libplugin.so", orphan}, {kExt, lib("_ok.so", "void* PyInit__ext(void){return 0;}")}},
                 {}};
  fs = judge({plugin});
  EXPECT_TRUE(says(fs, "WC514 [error] plug/libplugin.so") || says(fs, "WC514 [warning] plug/libplugin.so"))
      << testing::dump(fs);
}

// torch's unstable C++ ABI against the torch requirement; the stable ABI against the shim table.
TEST_F(Link, TorchAbiClassAndRequirement) {
  EXPECT_TRUE(unstable_torch_symbol("_ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_jb"));
  EXPECT_TRUE(unstable_torch_symbol("_ZN2at4_ops3add4callERKNS_6TensorES4_RKN3c106ScalarE"));
  EXPECT_TRUE(unstable_torch_symbol("_ZTIN3c109ErrorE"));
  EXPECT_FALSE(unstable_torch_symbol("_ZN5torch6stable6detail4callEv"));
  EXPECT_FALSE(unstable_torch_symbol("_ZN5torch10headeronly8ToStringEv"));
  EXPECT_TRUE(unstable_torch_symbol("_ZN5torch8autograd4NodeD2Ev"));
  EXPECT_FALSE(unstable_torch_symbol("_ZNSt6vectorIiSaIiEE9push_backERKi"));
  EXPECT_FALSE(unstable_torch_symbol("_ZN15torchvision_ext3fooEv"));

  lib("libc10.so", "int _ZN3c106detail14torchCheckFailEv(void){return 1;}", "-Wl,-soname,libc10.so");
  std::string unstable = lib("_ext.so",
                             "int _ZN3c106detail14torchCheckFailEv(void);\n"
                             "void* PyInit__ext(void){ return (void*)(long)_ZN3c106detail14torchCheckFailEv(); }",
                             "-Wl,--no-as-needed " + shell_quote(file("libc10.so")));
  BinaryFacts facts;
  auto ub = testing::read_file(file("_ext.so"));
  parse_elf_image(ub.data(), ub.size(), facts);
  Policy pol = load_policy("default");
  TorchAbi t = torch_abi_of(facts, pol.abi);
  EXPECT_TRUE(t.links_torch);
  EXPECT_FALSE(t.stable);
  EXPECT_EQ(t.unstable, 1u);
  auto range = judge({ext(unstable, {"torch>=2.14"})});
  EXPECT_TRUE(says(range, "WC515 [warning]") && says(range, "unstable C++ ABI") &&
              says(range, "admits 2.14 and every later release"))
      << testing::dump(range);
  for (const char* pin : {"torch==2.15.*", "torch==2.15.0", "torch>=2.15,<2.16"}) {
    auto pinned = judge({ext(unstable, {pin})});
    EXPECT_FALSE(says(pinned, "WC515")) << pin << testing::dump(pinned);
  }
  auto strict = judge({ext(unstable, {"torch>=2.14"})}, "pytorch");
  EXPECT_TRUE(says(strict, "WC515 [error]")) << testing::dump(strict);

  // A stable-ABI extension: its newest shim decides the oldest torch it may admit.
  ASSERT_FALSE(pol.abi.torch_shims.empty());
  std::string newest, oldest;
  for (const auto& [shim, v] : pol.abi.torch_shims) {
    if (!shim.starts_with("torch_")) continue;
    if (newest.empty() || compare_dotted(v, pol.abi.torch_shims.at(newest)) > 0) newest = shim;
    if (oldest.empty() || compare_dotted(v, pol.abi.torch_shims.at(oldest)) < 0) oldest = shim;
  }
  ASSERT_NE(pol.abi.torch_shims.at(newest), pol.abi.torch_shims.at(oldest));
  lib("libtorch.so", "", "-Wl,-soname,libtorch.so");
  std::string stable = lib("_ext.so",
                           "int " + newest + "(void); int " + oldest + "(void);\n" +
                               "void* PyInit__ext(void){ return (void*)(long)(" + newest + "() + " + oldest + "()); }",
                           "-Wl,--no-as-needed " + shell_quote(file("libtorch.so")));
  std::string need = pol.abi.torch_shims.at(newest);
  auto too_wide = judge({ext(stable, {"torch>=" + pol.abi.torch_shims.at(oldest)})});
  EXPECT_TRUE(says(too_wide, "WC515 [error]") && says(too_wide, "newest shim " + newest + " (torch " + need + ")"))
      << testing::dump(too_wide);
  auto enough = judge({ext(stable, {"torch>=" + need})});
  EXPECT_FALSE(says(enough, "WC515")) << testing::dump(enough);
}

// Two copies of one runtime in one process: renamed by auditwheel (libgomp-<hash>.so.1) or known
// by the version nodes it defines; one soname twice is one copy.
TEST_F(Link, DuplicateRuntimes) {
  script("gomp.map", "GOMP_1.0 { global: GOMP_parallel; local: *; };\n");
  auto gomp = [&](const std::string& soname) {
    return lib(soname, "void GOMP_parallel(void){}",
               "-Wl,-soname," + soname + " -Wl,--version-script," + shell_quote(file("gomp.map")));
  };
  std::string torch_gomp = gomp("libgomp.so.1"), vendored = gomp("libgomp-a34b3233.so.1"),
              renamed = gomp("libmyomp.so.1");
  auto user = [&](const std::string& soname, const std::string& rpath) {
    return lib("_ext.so", "void GOMP_parallel(void); void* PyInit__ext(void){ GOMP_parallel(); return 0; }",
               "-Wl,--no-as-needed " + shell_quote(file(soname)) + " -Wl,-rpath,'" + rpath + "'");
  };
  std::string torch_c = user("libgomp.so.1", "$ORIGIN/lib");
  Package torch{"torch",
                "2.99.0",
                kTag,
                {{"torch/lib/libgomp.so.1", torch_gomp}, {"torch/_C.cpython-312-x86_64-linux-gnu.so", torch_c}},
                {}};
  std::string e = user("libgomp-a34b3233.so.1", "$ORIGIN/../ext.libs");
  Package ours{"ext", "1.0", kTag, {{kExt, e}, {"ext.libs/libgomp-a34b3233.so.1", vendored}}, {"torch"}};
  auto fs = judge({ours, torch});
  EXPECT_TRUE(says(fs, "WC516 [warning] ext.libs/libgomp-a34b3233.so.1: 2 copies of libgomp load into one process"))
      << testing::dump(fs);
  EXPECT_TRUE(says(judge({ours, torch}, "pytorch"), "WC516 [error]"));
  // By version node: a copy under another name.
  std::string e2 = user("libmyomp.so.1", "$ORIGIN/../ext.libs");
  Package other{"ext", "1.0", kTag, {{kExt, e2}, {"ext.libs/libmyomp.so.1", renamed}}, {"torch"}};
  EXPECT_TRUE(says(judge({other, torch}), "2 copies of libgomp")) << testing::dump(judge({other, torch}));
  // The same soname twice: the loader binds the second need to the first copy.
  std::string e3 = user("libgomp.so.1", "$ORIGIN/../ext.libs");
  Package same{"ext", "1.0", kTag, {{kExt, e3}, {"ext.libs/libgomp.so.1", torch_gomp}}, {"torch"}};
  EXPECT_FALSE(says(judge({same, torch}), "WC516")) << testing::dump(judge({same, torch}));
  // Alone, one copy.
  EXPECT_FALSE(says(judge({ours}), "WC516"));
}

// Windows: a DLL of the run must export every name a binary imports from it (clang and lld-link
// build them here; the exports the reader finds are cross-checked with objdump -p). A DLL the run
// does not ship (kernel32.dll) is not judged.
TEST_F(Link, PeImportsByNameFromDllsOfTheRun) {
  if (run_command("command -v clang && command -v lld-link").exit_code != 0)
    GTEST_SKIP() << "clang or lld-link missing: no Windows DLLs can be built here";
  auto cl = [&](const std::string& name, const std::string& src, const std::string& link) {
    windows_dll(name, src, link);
  };
  // objdump's "[Ordinal/Name Pointer] Table" rows ("\t[   1] alpha"): the names it reads.
  auto objdump_exports = [&](const std::string& path) {
    std::vector<std::string> names;
    auto r = run_command("objdump -p " + shell_quote(path));
    auto at = r.out.find("[Ordinal/Name Pointer] Table");
    for (size_t line = r.out.find('\n', at); at != std::string::npos && line != std::string::npos;) {
      size_t end = r.out.find('\n', line + 1);
      std::string row = r.out.substr(line + 1, end == std::string::npos ? std::string::npos : end - line - 1);
      auto close = row.find("] ");
      if (row.empty() || row[0] != '\t' || close == std::string::npos) break;
      names.push_back(row.substr(close + 2));
      line = end;
    }
    return names;
  };
  cl("v2", "int alpha(void){return 1;}\nint beta(void){return 2;}\n",
     "/export:alpha /export:beta /out:foo.dll /implib:foo.lib");
  auto v2 = testing::read_file(file("foo.dll"));
  BinaryFacts facts;
  parse_binary_image(v2.data(), v2.size(), facts);
  // Each ordinal with an address ("#N"), then the names, as objdump reads them.
  EXPECT_EQ(facts.pe_exports, (std::vector<std::string>{"#1", "#2", "alpha", "beta"}));
  std::vector<std::string> named;
  for (const auto& n : facts.pe_exports)
    if (!n.starts_with('#')) named.push_back(n);
  EXPECT_EQ(named, objdump_exports(file("foo.dll")));
  cl("k32", "int GetTickCount(void){return 0;}\n", "/export:GetTickCount /out:kernel32.dll /implib:kernel32.lib");
  cl("ext",
     "__declspec(dllimport) int alpha(void); __declspec(dllimport) int beta(void);\n"
     "__declspec(dllimport) int GetTickCount(void);\nint PyInit__ext(void){return alpha()+beta()+GetTickCount();}\n",
     "/export:PyInit__ext foo.lib kernel32.lib /out:_ext.pyd");
  auto ext = testing::read_file(file("_ext.pyd"));
  BinaryFacts e;
  parse_binary_image(ext.data(), ext.size(), e);
  EXPECT_EQ(e.dll_imports["foo.dll"], (std::vector<std::string>{"alpha", "beta"}));
  cl("v1", "int alpha(void){return 1;}\n", "/export:alpha /out:foo.dll");
  auto v1 = testing::read_file(file("foo.dll"));
  EXPECT_EQ(objdump_exports(file("foo.dll")), std::vector<std::string>{"alpha"});

  auto wheel = [&](const std::vector<uint8_t>& dll) {
    return Package{
        "ext",
        "1.0",
        "cp312-cp312-win_amd64",
        {{"ext/_ext.pyd", std::string(ext.begin(), ext.end())}, {"ext/FOO.dll", std::string(dll.begin(), dll.end())}},
        {}};
  };
  auto good = judge({wheel(v2)});
  EXPECT_FALSE(says(good, "WC514")) << testing::dump(good);
  auto bad = judge({wheel(v1)});
  EXPECT_TRUE(says(bad, "WC514 [error] ext/_ext.pyd: 1 imported name that no DLL of the run exports: foo.dll!beta"))
      << testing::dump(bad);
  EXPECT_FALSE(says(bad, "GetTickCount")) << testing::dump(bad);
}

// Windows binds more than names: an import by ordinal (a NONAME export), an export forwarded to
// another DLL of the run (followed; one forwarding to a name that DLL lacks fails the load), and a
// delay-loaded import (missing, it fails at the first call: a warning).
TEST_F(Link, PeOrdinalsForwardersAndDelayLoads) {
  if (run_command("command -v clang && command -v lld-link").exit_code != 0)
    GTEST_SKIP() << "clang or lld-link missing: no Windows DLLs can be built here";
  auto cl = [&](const std::string& name, const std::string& src, const std::string& link) {
    windows_dll(name, src, link);
    auto bytes = testing::read_file(file(name + ".dll"));
    return std::string(bytes.begin(), bytes.end());
  };
  // other.dll defines delta; lib.dll exports alpha by ordinal 7 only, and gamma forwarded to other.delta.
  std::string other = cl("other", "int delta(void){return 4;}\n", "/export:delta /out:other.dll /implib:other.lib");
  std::string lib = cl("lib", "int alpha(void){return 1;}\n",
                       "/export:alpha,@7,NONAME /export:gamma=other.delta /out:lib.dll /implib:lib.lib");
  BinaryFacts lf;
  parse_binary_image(reinterpret_cast<const uint8_t*>(lib.data()), lib.size(), lf);
  EXPECT_NE(std::find(lf.pe_exports.begin(), lf.pe_exports.end(), "#7"), lf.pe_exports.end());
  ASSERT_EQ(lf.pe_forwarders.size(), 2u);  // gamma by its name and by its ordinal
  EXPECT_EQ(lf.pe_forwarders.back(), (std::pair<std::string, std::string>{"gamma", "other.delta"}));
  std::string ext = cl("_ext",
                       "__declspec(dllimport) int alpha(void); __declspec(dllimport) int gamma(void);\n"
                       "__declspec(dllimport) int delta(void);\n"
                       "void* __delayLoadHelper2(void* a, void* b){return 0;}\n"
                       "int PyInit__ext(void){return alpha()+gamma()+delta();}\n",
                       "/export:PyInit__ext lib.lib other.lib /delayload:other.dll /out:_ext.dll");
  BinaryFacts ef;
  parse_binary_image(reinterpret_cast<const uint8_t*>(ext.data()), ext.size(), ef);
  EXPECT_EQ(ef.dll_imports["lib.dll"], (std::vector<std::string>{"#7", "gamma"}));
  EXPECT_EQ(ef.dll_delay_imports["other.dll"], (std::vector<std::string>{"delta"}));
  auto wheel = [&](const std::string& other_dll) {
    return Package{"ext",
                   "1.0",
                   "cp312-cp312-win_amd64",
                   {{"ext/_ext.pyd", ext}, {"ext/lib.dll", lib}, {"ext/other.dll", other_dll}},
                   {}};
  };
  auto good = judge({wheel(other)});
  EXPECT_FALSE(says(good, "WC514")) << testing::dump(good);
  // An other.dll without delta: gamma forwards nowhere (the load fails), and the delay-loaded
  // delta fails at its first call.
  std::string hollow = cl("other2", "int epsilon(void){return 5;}\n", "/export:epsilon /out:other2.dll");
  auto bad = judge({wheel(hollow)});
  EXPECT_TRUE(says(bad, "WC514 [error] ext/_ext.pyd: 1 imported name that no DLL of the run exports: lib.dll!gamma"))
      << testing::dump(bad);
  EXPECT_TRUE(says(
      bad,
      "WC514 [warning] ext/_ext.pyd: 1 delay-loaded imported name that no DLL of the run exports: other.dll!delta"))
      << testing::dump(bad);
  // A lib.dll without ordinal 7 (alpha exported by name only): the import by ordinal fails the load.
  std::string by_name =
      cl("lib2", "int alpha(void){return 1;}\n", "/export:alpha /export:gamma=other.delta /out:lib2.dll");
  auto no_ordinal = judge({Package{"ext",
                                   "1.0",
                                   "cp312-cp312-win_amd64",
                                   {{"ext/_ext.pyd", ext}, {"ext/lib.dll", by_name}, {"ext/other.dll", other}},
                                   {}}});
  EXPECT_TRUE(
      says(no_ordinal, "WC514 [error] ext/_ext.pyd: 1 imported name that no DLL of the run exports: lib.dll!#7"))
      << testing::dump(no_ordinal);
}

// The export index: one slot per distinct name, its definitions chained (sym@V1, sym@@V2). A table
// naming one string 200,000 times makes no probe sequence longer: 200,000 lookups of other names
// stay linear (they walked the whole run of copies, 10^10 steps, before the chaining).
TEST(LinkIndex, OneNameManyTimesIsOneSlot) {
  std::string strings("\0x\0", 3);
  std::vector<std::string> others;
  for (int i = 0; i < 200000; ++i) others.push_back("name" + std::to_string(i));
  for (const auto& o : others) strings += o + '\0';
  DynamicSymbols d(strings);
  for (uint16_t v = 0; v < 200; ++v)
    for (int i = 0; i < 1000; ++i) d.add_defined({1, 1, v, false});
  d.add_defined({3, 5, 1, false});  // name0
  d.index();
  int found = 0;
  d.for_each_definition("x", DynamicSymbols::hash("x"), [&](const DynamicSymbols::Symbol&) { return ++found, false; });
  EXPECT_EQ(found, 200000);
  size_t hits = 0;
  for (const auto& o : others)
    d.for_each_definition(o, DynamicSymbols::hash(o), [&](const DynamicSymbols::Symbol& s) {
      hits += d.name(s) == o;
      return true;
    });
  EXPECT_EQ(hits, 1u);  // name0 only
}

// A slimmed copy tells names apart by their 64-bit hash and length alone: the hash must take every
// byte (each length to 64, each byte changed in turn, each place) and tell apart the names real
// libraries hold together (the exports of the C++ runtime and of this test binary, as nm lists them).
TEST(LinkIndex, NameHashesTellNamesApart) {
  std::set<std::pair<uint64_t, size_t>> seen;
  size_t names = 0;
  auto add = [&](const std::string& n) {
    names += seen.insert({DynamicSymbols::hash(n), n.size()}).second;
    return n;
  };
  for (size_t len = 0; len <= 64; ++len) {
    std::string base(len, 'a');
    add(base);
    for (size_t at = 0; at < len; ++at)
      for (char c : {'b', '\0', '\xff'}) {
        std::string n = base;
        n[at] = c;
        add(n);
      }
  }
  EXPECT_EQ(names, seen.size());
  EXPECT_EQ(seen.size(), 65u + 3u * (64u * 65u / 2u));  // no two of them alike
  auto nm = testing::run_command(
      "nm -D --defined-only --format=just-symbols \"$(g++ -print-file-name=libstdc++.so)\"; "
      "nm --format=just-symbols /proc/" +
      std::to_string(getpid()) + "/exe");
  std::set<std::string> real;
  for (std::string_view line : split(nm.out, '\n'))
    if (!line.empty()) real.emplace(line);
  ASSERT_GT(real.size(), 5000u) << nm.err;
  std::set<std::pair<uint64_t, size_t>> hashed;
  for (const auto& n : real) hashed.insert({DynamicSymbols::hash(n), n.size()});
  EXPECT_EQ(hashed.size(), real.size());
}

// The slimmed copy a run holds for the install-set rules answers every question the install-set
// rules ask as the whole table does: each definition of each name (versions, hidden), no
// definition of a name it lacks, the imports by name with their versions, the namespaces the
// definitions open; and it holds less than the names it no longer has.
TEST(LinkIndex, SlimmedSymbolsAnswerAsTheWholeTable) {
  testing::TempDir dir;
  std::string src =
      "namespace c10 { int first(int x) { return x + 1; } }\n"
      "namespace at { namespace detail { int second(int x) { return x * 2; } } }\n"
      "struct Gadget { int use(int); }; int Gadget::use(int x) { return x - 1; }\n"
      "extern \"C\" { int f_old(void) { return 1; } int f_new(void) { return 2; } int puts(const char*);\n"
      "int talk(void) { return puts(\"hi\"); } }\n"
      "__asm__(\".symver f_old,f@V_1\"); __asm__(\".symver f_new,f@@V_2\");\n";
  auto bytes = testing::gxx_versioned_library(dir, src);
  ASSERT_FALSE(::testing::Test::HasFailure());
  BinaryFacts b;
  parse_elf_image(bytes.data(), bytes.size(), b);
  ASSERT_TRUE(b.symbols);
  const DynamicSymbols& whole = *b.symbols;
  auto slim = whole.slimmed();
  ASSERT_TRUE(slim->slim());
  EXPECT_TRUE(slim->defined().empty());
  EXPECT_EQ(slim->definition_count(), whole.defined().size());
  EXPECT_LT(slim->strings().size(), whole.strings().size());
  const auto answers = testing::definitions_of;
  size_t asked = 0;
  for (const auto& def : whole.defined()) {
    std::string name(whole.name(def));
    EXPECT_EQ(answers(*slim, name), answers(whole, name)) << name;
    EXPECT_TRUE(answers(*slim, name + "x").empty()) << name;
    ++asked;
  }
  EXPECT_GT(asked, 5u);
  EXPECT_EQ(answers(*slim, "f"), (std::vector<std::string>{"V_1 hidden", "V_2"}));
  EXPECT_TRUE(answers(*slim, "g").empty());
  EXPECT_EQ(slim->defined_namespaces(), whole.defined_namespaces());
  EXPECT_EQ(slim->defined_namespaces(), (std::vector<std::string_view>{"Gadget", "at", "c10"}));
  ASSERT_EQ(slim->undefined().size(), whole.undefined().size());
  for (size_t i = 0; i < whole.undefined().size(); ++i) {
    const auto &a = whole.undefined()[i], &z = slim->undefined()[i];
    EXPECT_EQ(slim->name(z), whole.name(a));
    EXPECT_EQ(slim->version_name(z.version), whole.version_name(a.version));
    EXPECT_EQ(slim->version_file(z.version), whole.version_file(a.version));
  }
  BinaryFacts slimmed = b;
  slimmed.symbols = slim;
  const auto imports = imported_names(slimmed);
  EXPECT_EQ(imports, imported_names(b));
  EXPECT_NE(std::find(imports.begin(), imports.end(), "puts"), imports.end());
}

// The generated tables against their generators: the shim table (tools/gen_torch_stable_abi.py reads
// torch's headers out of the pinned PyPI wheels with range requests, ~9 MB; skips offline) and the
// C library names a Python process holds (tools/gen_interpreter_symbols.py reads this machine's
// glibc; skips when it is not the release the table was made from).
TEST(LinkData, TablesMatchTheirGenerators) {
  const std::string src = WC_SOURCE_DIR;
  const std::string shims = "python3 " + shell_quote(src + "/tools/gen_torch_stable_abi.py");
  auto self = run_command(shims + " --selftest");
  EXPECT_EQ(self.exit_code, 0) << self.out << self.err;
  const char* home = std::getenv("HOME");
  std::string cache = std::string(home ? home : "/tmp") + "/.cache/wheelcheck-tests/torch-shims";
  auto r = run_command(shims + " --cache " + shell_quote(cache) + " --check " +
                       shell_quote(src + "/policies/torch_stable_abi.json"));
  bool offline = r.exit_code == 3;
  if (!offline) {
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  }
  auto libc = run_command("python3 " + shell_quote(src + "/tools/gen_interpreter_symbols.py") + " --check " +
                          shell_quote(src + "/policies/interpreter_symbols.json"));
  if (libc.exit_code != 77) {
    EXPECT_EQ(libc.exit_code, 0) << libc.out << libc.err;
  }
  Policy p = load_policy("default");
  EXPECT_TRUE(p.linux.interpreter_symbols.count("sqrt") && p.linux.interpreter_symbols.count("dlopen"));
  EXPECT_FALSE(p.linux.interpreter_symbols.count("aoti_torch_empty_strided"));
  if (offline) GTEST_SKIP() << "PyPI unreachable, the shim table was not regenerated: " << r.err;
  if (libc.exit_code == 77) GTEST_SKIP() << libc.out;
}

}  // namespace
}  // namespace wc
