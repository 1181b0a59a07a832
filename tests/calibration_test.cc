// What real releases taught the rules (issue: calibrated on real releases), each on a wheel built
// here: install sets per architecture, needs a declared dependency provides, libraries nothing
// loads, waivers, Android and iOS tags, macOS minimums, Metadata-Version, WC403 off, unknown CUDA
// variants, and PEP 508 markers.
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "pipeline/check.h"
#include "rules/loader/install_set.h"
#include "support/fixtures.h"
#include "support/test_support.h"
#include "wheel/requirement.h"
#include "wheel_builder.h"

namespace wc {
namespace {

using testing::run_command;
using testing::shell_quote;
using testing::WheelBuilder;

std::string dump_of(const std::vector<Finding>& fs) { return testing::dump(fs); }
using testing::says;

class Gcc : public ::testing::Test {
 protected:
  testing::TempDir dir;
  std::string lib(const std::string& name, const std::string& src, const std::string& flags) {
    return testing::gcc_shared_object(dir, name, src, flags);
  }
  // The findings of the first wheel, judged in a run of all of them (default policy).
  static std::vector<Finding> judge(std::vector<const WheelBuilder*> run_of) {
    static const Policy p = load_policy("default");
    std::vector<std::pair<std::vector<uint8_t>, std::string>> wheels;
    for (const auto* w : run_of) wheels.emplace_back(w->build(), w->filename());
    return testing::judge_first_of_run(wheels, p);  // whole facts, and the facts a run keeps, alike
  }
  // A library that needs `soname` (a stub built here), with `rpath`.
  std::string needing(const std::string& soname, const std::string& rpath = "") {
    lib("libstub.so", "int stub(void){return 1;}", "-Wl,-soname," + soname);
    return lib("libuser.so", "int stub(void); int u(void){return stub();}",
               "-Wl,--no-as-needed " + shell_quote(dir.file("libstub.so")) +
                   (rpath.empty() ? "" : " -Wl,-rpath,'" + rpath + "'"));
  }
};

TEST_F(Gcc, InstallSetsArePerArchitecture) {
  std::string user = needing("libdep.so.1", "$ORIGIN/../../dep/lib");
  WheelBuilder app("app", "1.0", "cp312-cp312-manylinux_2_28_x86_64");
  app.purelib(false).add("app/lib/_app.cpython-312-x86_64-linux-gnu.so", user);
  auto x86 = testing::tiny_elf(true, false, 62), arm = testing::tiny_elf(true, false, 183);
  WheelBuilder dep86("dep", "1.0", "py3-none-manylinux_2_28_x86_64"),
      deparm("dep", "1.0", "py3-none-manylinux_2_28_aarch64");
  dep86.purelib(false).add("dep/lib/libdep.so.1", std::string(x86.begin(), x86.end()));
  deparm.purelib(false).add("dep/lib/libdep.so.1", std::string(arm.begin(), arm.end()));
  std::vector<WheelFacts> run;
  run.push_back(testing::facts_of(app.build(), app.filename()));
  run.push_back(testing::facts_of(deparm.build(), deparm.filename()));
  Policy p = load_policy("default");
  auto only_arm = judge_wheel(run[0], run, p).findings;
  EXPECT_TRUE(says(only_arm,
                   "WC503 [error] app/lib/_app.cpython-312-x86_64-linux-gnu.so: needs libdep.so.1, which is not found"))
      << dump_of(only_arm);
  EXPECT_FALSE(installable_together(run[0], run[1]));
  run.push_back(testing::facts_of(dep86.build(), dep86.filename()));
  auto with_x86 = judge_wheel(run[0], run, p).findings;
  EXPECT_FALSE(testing::has_rule(with_x86, "WC503")) << dump_of(with_x86);
}

// A bare `name.so` is importable only when it exports PyInit_name: ONNX Runtime's CUDA provider
// (onnxruntime_providers_cuda.so) is a plugin the package dlopens, so its unmet needs are
// warnings like any library nothing loads at import; the same need in a real module is an error.
TEST_F(Gcc, BareSharedObjectsWithoutPyInitArePlugins) {
  lib("libstub.so", "int stub(void){return 1;}", "-Wl,-soname,libcudnn.so.9");
  auto build = [&](const std::string& name, const std::string& init) {
    std::string src = "int stub(void); int provider(void){return stub();}" + init;
    return lib(name, src, "-Wl,--no-as-needed " + shell_quote(dir.file("libstub.so")));
  };
  std::string plugin = build("onnxruntime_providers_cuda.so", "");
  std::string module = build("_pybind_state.so", " void* PyInit__pybind_state(void){return 0;}");
  auto check = [&](const std::string& entry, const std::string& bytes) {
    WheelBuilder b("ort", "1.0", "cp312-cp312-manylinux_2_28_x86_64");
    b.purelib(false).add(entry, bytes);
    return testing::findings_of(b.build(), b.filename());
  };
  auto p = check("ort/capi/onnxruntime_providers_cuda.so", plugin);
  EXPECT_TRUE(says(p, "WC503 [warning] ort/capi/onnxruntime_providers_cuda.so")) << dump_of(p);
  EXPECT_FALSE(has_errors(p)) << dump_of(p);
  auto m = check("ort/capi/_pybind_state.so", module);
  EXPECT_TRUE(says(m, "WC503 [error] ort/capi/_pybind_state.so")) << dump_of(m);
  // The ABI-tagged name decides without looking at the exports.
  auto tagged = check("ort/capi/onnxruntime_providers_cuda.cpython-312-x86_64-linux-gnu.so", plugin);
  EXPECT_TRUE(says(tagged, "WC503 [error]")) << dump_of(tagged);
}

// An unrelated wheel in the same run never changes a verdict: the app declares cuda-toolkit[curand]
// (one warning: the library comes from that dependency), and an nvidia-curand wheel it does not
// declare, in the run beside it, is not its install set (it once turned the warning into an error).
TEST_F(Gcc, VerdictIndependentOfUnrelatedWheels) {
  std::string user = needing("libcurand.so.10");
  WheelBuilder app("app", "1.0", "cp312-cp312-manylinux_2_28_x86_64");
  app.purelib(false).add("app/_c.cpython-312-x86_64-linux-gnu.so", user).requires_dist("cuda-toolkit[curand]");
  auto so = testing::tiny_elf(true, false, 62);
  WheelBuilder curand("nvidia-curand", "10.4.0", "py3-none-manylinux_2_27_x86_64");
  curand.purelib(false).add("nvidia/cu13/lib/libcurand.so.10", std::string(so.begin(), so.end()));
  Policy p = load_policy("default");
  std::vector<WheelFacts> alone;
  alone.push_back(testing::facts_of(app.build(), app.filename()));
  std::vector<WheelFacts> together;
  together.push_back(testing::facts_of(app.build(), app.filename()));
  together.push_back(testing::facts_of(curand.build(), curand.filename()));
  auto a = judge_wheel(alone[0], alone, p).findings, t = judge_wheel(together[0], together, p).findings;
  EXPECT_TRUE(says(a, "WC503 [warning]")) << dump_of(a);
  EXPECT_EQ(dump_of(a), dump_of(t));
  // Declared directly, the provider's wheel is in the install set, and the need must then resolve
  // for real (it does not: no search path reaches nvidia/cu13/lib).
  app.requires_dist("nvidia-curand");
  together[0] = testing::facts_of(app.build(), app.filename());
  auto d = judge_wheel(together[0], together, p).findings;
  EXPECT_TRUE(says(d, "the wheel that provides it is in the set, but not where the search path looks")) << dump_of(d);
}

// A torch extension (xformers, vLLM-style kernels) needs libc10.so from its declared torch
// dependency, which `import torch` loads first: a warning naming torch alone; resolved by soname
// with torch's wheel in the run (no search path needed); an error when that wheel lacks it.
TEST_F(Gcc, LibrariesFromADeclaredTorch) {
  // An extension module of `project` needing `soname`, declaring `requirement`.
  auto extension = [&](const std::string& project, const std::string& soname, const std::string& requirement) {
    WheelBuilder w(project, "0.1", "cp312-cp312-manylinux_2_28_x86_64");
    w.purelib(false).add(project + "/_C.cpython-312-x86_64-linux-gnu.so", needing(soname)).requires_dist(requirement);
    return w;
  };
  // A wheel of `project` shipping a library with `soname` at `path`.
  auto provider = [&](const std::string& project, const std::string& version, const std::string& tag,
                      const std::string& path, const std::string& soname) {
    WheelBuilder w(project, version, tag);
    w.purelib(false).add(path, lib(soname, "int provided(void){return 1;}", "-Wl,-soname," + soname));
    return w;
  };
  WheelBuilder x = extension("xkern", "libc10.so", "torch>=2.10");
  WheelBuilder torch =
      provider("torch", "2.15.0", "cp312-cp312-manylinux_2_28_x86_64", "torch/lib/libc10.so", "libc10.so");
  WheelBuilder hollow("torch", "2.15.0", "cp312-cp312-manylinux_2_28_x86_64");
  hollow.purelib(false).add("torch/lib/README", "no library here");
  auto alone = judge({&x});
  EXPECT_TRUE(says(alone, "come from the dependency torch")) << dump_of(alone);
  EXPECT_FALSE(has_errors(alone)) << dump_of(alone);
  auto resolved = judge({&x, &torch});
  EXPECT_FALSE(testing::has_rule(resolved, "WC503")) << dump_of(resolved);
  auto missing = judge({&x, &hollow});
  EXPECT_TRUE(says(missing, "WC503 [error]")) << dump_of(missing);
  // The CUDA runtime comes through torch's own dependencies, which `import torch` loads first (its
  // libtorch_cuda.so needs it): a warning naming torch alone, resolved when the run holds torch and
  // the wheel shipping it.
  WheelBuilder y = extension("ykern", "libcudart.so.13", "torch");
  WheelBuilder runtime = provider("nvidia-cuda-runtime", "13.0.96", "py3-none-manylinux_2_27_x86_64",
                                  "nvidia/cu13/lib/libcudart.so.13", "libcudart.so.13");
  torch.requires_dist("nvidia-cuda-runtime==13.0.96; platform_system == \"Linux\"");
  torch.add("torch/lib/libtorch_cuda.so", needing("libcudart.so.13", "$ORIGIN/../../nvidia/cu13/lib"));
  auto y_alone = judge({&y});
  EXPECT_TRUE(says(y_alone, "come from the dependency torch")) << dump_of(y_alone);
  auto y_with = judge({&y, &torch, &runtime});
  EXPECT_FALSE(testing::has_rule(y_with, "WC503")) << dump_of(y_with);
}

// ABI tag `none` with an extension module named for no interpreter (TensorRT's cp314-none wheel
// ships a bare tensorrt.so exporting PyInit_tensorrt): a free-threaded 3.14 would install and
// import it. A module named for its interpreter, and a plugin exporting no PyInit_, are fine.
TEST_F(Gcc, AbiNoneWithAnExtensionModule) {
  std::string module = lib("tensorrt.so", "void* PyInit_tensorrt(void){return 0;}", "");
  std::string plugin = lib("plugin.so", "int plugin_entry(void){return 0;}", "");
  auto check = [&](const std::string& tag, const std::string& path, const std::string& bytes) {
    WheelBuilder w("trt", "10.0", tag);
    w.purelib(false).add("trt/__init__.py", "").add(path, bytes);
    return testing::findings_of(w.build(), w.filename());
  };
  auto bare = check("cp314-none-manylinux_2_28_x86_64", "tensorrt.so", module);
  EXPECT_TRUE(says(bare,
                   "WC105 [error] tensorrt.so: a CPython extension module (it exports PyInit_tensorrt) named "
                   "for no interpreter, in a wheel whose ABI tag is 'none'"))
      << dump_of(bare);
  auto py3 = check("py3-none-manylinux_2_28_x86_64", "trt/tensorrt.so", module);
  EXPECT_TRUE(says(py3, "WC105 [error] trt/tensorrt.so: a CPython extension module")) << dump_of(py3);
  auto bound = check("cp314-none-manylinux_2_28_x86_64", "trt/tensorrt.cpython-314-x86_64-linux-gnu.so", module);
  EXPECT_FALSE(says(bound, "named for no interpreter")) << dump_of(bound);
  auto tagged = check("cp314-cp314-manylinux_2_28_x86_64", "tensorrt.so", module);
  EXPECT_FALSE(says(tagged, "named for no interpreter")) << dump_of(tagged);
  auto not_a_module = check("py3-none-manylinux_2_28_x86_64", "trt/plugin.so", plugin);
  EXPECT_FALSE(says(not_a_module, "named for no interpreter")) << dump_of(not_a_module);
}

// Install sets respect versions: a wheel whose version the requirement excludes is not what pip
// installs beside the wheel (torch 2.13 pins nvidia-nccl==2.29.7; an nccl 2.31.2 in the run is not
// its nccl). With an admitted one in the run, that one is used; with none, the excluded one is what
// a forced install loads: it meets the need, and WC517 says pip refuses the pair.
TEST_F(Gcc, InstallSetsRespectVersions) {
  std::string user = needing("libnccl.so.2", "$ORIGIN/../nvidia/nccl/lib");
  WheelBuilder app("ncclapp", "1.0", "cp312-cp312-manylinux_2_28_x86_64");
  app.purelib(false).add("ncclapp/_C.cpython-312-x86_64-linux-gnu.so", user);
  app.requires_dist("nvidia-nccl-cu13==2.29.7; platform_system == \"Linux\"");
  auto nccl = [&](const std::string& version) {
    WheelBuilder w("nvidia-nccl-cu13", version, "py3-none-manylinux_2_18_x86_64");
    w.purelib(false).add("nvidia/nccl/lib/libnccl.so.2",
                         lib("libnccl.so.2", "int ncclGetVersion(int* v){*v=1;return 0;}", "-Wl,-soname,libnccl.so.2"));
    return w;
  };
  WheelBuilder pinned = nccl("2.29.7"), other = nccl("2.31.2");
  auto alone = judge({&app});
  EXPECT_TRUE(says(alone, "come from the dependency nvidia-nccl-cu13")) << dump_of(alone);
  auto with_other = judge({&app, &other});
  EXPECT_TRUE(says(with_other,
                   "WC517 [error] ncclapp-1.0.dist-info/METADATA: Requires-Dist nvidia-nccl-cu13==2.29.7; "
                   "platform_system == \"Linux\" excludes nvidia-nccl-cu13 2.31.2"))
      << dump_of(with_other);
  EXPECT_FALSE(testing::has_rule(with_other, "WC503")) << dump_of(with_other);
  auto with_pinned = judge({&app, &pinned});
  EXPECT_FALSE(testing::has_rule(with_pinned, "WC503")) << dump_of(with_pinned);
  auto with_both = judge({&app, &other, &pinned});
  EXPECT_FALSE(testing::has_rule(with_both, "WC503")) << dump_of(with_both);
  EXPECT_FALSE(testing::has_rule(with_both, "WC517")) << dump_of(with_both);
  // One requirement admitting the version is enough (pip installs the wheel for it): an extra's
  // pin does not exclude what the unconditional requirement admits.
  WheelBuilder loose("ncclapp", "1.0", "cp312-cp312-manylinux_2_28_x86_64");
  loose.purelib(false).add("ncclapp/_C.cpython-312-x86_64-linux-gnu.so", user);
  loose.requires_dist("nvidia-nccl-cu13>=2.30").requires_dist("nvidia-nccl-cu13==2.29.7; extra == \"old\"");
  auto loose_with_other = judge({&loose, &other});
  EXPECT_FALSE(testing::has_rule(loose_with_other, "WC503")) << dump_of(loose_with_other);
}

// A library named like a single-version module in an abi3 wheel but exporting no PyInit_ (a torch
// op library torchao loads by path) is no module: WC105 only for the one that is.
TEST_F(Gcc, Abi3WheelWithAVersionedLibraryThatIsNoModule) {
  auto check = [&](const std::string& init) {
    std::string so = lib("_C_mxfp8.so", "int op(void){return 1;}" + init, "");
    WheelBuilder b("ao", "0.1", "cp310-abi3-manylinux_2_28_x86_64");
    b.purelib(false).add("ao/_C_mxfp8.cpython-310-x86_64-linux-gnu.so", so);
    return testing::findings_of(b.build(), b.filename());
  };
  auto op_library = check("");
  EXPECT_FALSE(testing::has_rule(op_library, "WC105")) << dump_of(op_library);
  auto module = check(" void* PyInit__C_mxfp8(void){return 0;}");
  EXPECT_TRUE(says(module, "abi3 wheel contains an extension built for one CPython version (cp310)"))
      << dump_of(module);
}

TEST_F(Gcc, NeedsADeclaredDependencyProvides) {
  std::string user = needing("libcublas.so.13", "$ORIGIN/../nvidia/cu13/lib");
  auto check = [&](const std::string& requires_dist) {
    WheelBuilder b("gpuapp", "1.0", "cp312-cp312-manylinux_2_28_x86_64");
    b.purelib(false).add("gpuapp/_core.cpython-312-x86_64-linux-gnu.so", user);
    if (!requires_dist.empty()) b.requires_dist(requires_dist);
    return testing::findings_of(b.build(), b.filename());
  };
  auto declared = check("nvidia-cublas==13.4.1.3; platform_system == \"Linux\"");
  EXPECT_TRUE(says(declared,
                   "WC503 [warning] gpuapp-1.0.dist-info/METADATA: libcublas.so.13 (needed by 1 binary) come from the "
                   "dependency nvidia-cublas"))
      << dump_of(declared);
  EXPECT_FALSE(has_errors(declared)) << dump_of(declared);
  auto meta = check("cuda-toolkit[cublas,cudart]==13.2.2");  // the meta-package's extras name what it pulls in
  EXPECT_TRUE(says(meta, "come from the dependency cuda-toolkit")) << dump_of(meta);
  auto windows_only = check("nvidia-cublas==13.4.1.3; platform_system == \"Windows\"");  // not installed on Linux
  EXPECT_TRUE(says(windows_only, "WC503 [error]")) << dump_of(windows_only);
  auto undeclared = check("");
  EXPECT_TRUE(says(
      undeclared,
      "WC503 [error] gpuapp/_core.cpython-312-x86_64-linux-gnu.so: needs libcublas.so.13, which is not found: searched "
      "$ORIGIN/../nvidia/cu13/lib (-> nvidia/cu13/lib)"))
      << dump_of(undeclared);
}

// --resolve-deps: the dependency the providers table names is fetched from an index (PEP 503 on
// loopback), its central directory read, and the need resolved for real: gone when the dependency's
// wheel ships the library; an error when the newest wheel that satisfies the pin does not.
TEST_F(Gcc, ResolveDepsReadsTheDependencyFromAnIndex) {
  std::string user = needing("libcublas.so.13", "$ORIGIN/../nvidia/cu13/lib");
  std::string stub = lib("libcublas.so.13", "int stub(void){return 1;}", "-Wl,-soname,libcublas.so.13");
  testing::TempDir site;
  std::filesystem::create_directories(site.file("simple/nvidia-cublas"));
  WheelBuilder app("gpuapp", "1.0", "cp312-cp312-manylinux_2_28_x86_64");
  app.purelib(false).add("gpuapp/_core.cpython-312-x86_64-linux-gnu.so", user).requires_dist("nvidia-cublas>=13.4");
  std::string app_path = app.write(site.path());
  // 13.4.1 ships the library; 13.5.0 (newest, still >=13.4) is for aarch64 only; 13.3.0 is excluded by the pin;
  // 13.9.0rc1 is a pre-release the requirement does not ask for.
  WheelBuilder good("nvidia-cublas", "13.4.1", "py3-none-manylinux_2_27_x86_64");
  good.purelib(false).add("nvidia/cu13/lib/libcublas.so.13", stub);
  WheelBuilder arm("nvidia-cublas", "13.5.0", "py3-none-manylinux_2_27_aarch64");
  arm.purelib(false).add("nvidia/cu13/lib/libcublas.so.13", stub);
  WheelBuilder old("nvidia-cublas", "13.3.0", "py3-none-manylinux_2_27_x86_64");
  old.purelib(false).add("nvidia/cu13/lib/libcublas.so.13", stub);
  WheelBuilder pre("nvidia-cublas", "13.9.0rc1", "py3-none-manylinux_2_27_x86_64");  // a pre-release: skipped
  pre.purelib(false).add("nvidia/cu13/lib/README", "no library here");
  std::string html = "<html><body>\n";
  for (auto* w : {&good, &arm, &old, &pre}) {
    w->write(site.file("files"));
    html += "<a href=\"../../files/" + w->filename() + "\">" + w->filename() + "</a>\n";
  }
  html += "</body></html>\n";
  testing::write_file(site.file("simple/nvidia-cublas/index.html"), std::vector<uint8_t>(html.begin(), html.end()));
  // A second index whose only matching wheel lacks the library.
  std::filesystem::create_directories(site.file("empty/nvidia-cublas"));
  WheelBuilder hollow("nvidia-cublas", "13.4.2", "py3-none-manylinux_2_27_x86_64");
  hollow.purelib(false).add("nvidia/cu13/lib/README", "no library here");
  hollow.write(site.file("files"));
  std::string html2 = "<a href=\"../../files/" + hollow.filename() + "\">" + hollow.filename() + "</a>\n";
  testing::write_file(site.file("empty/nvidia-cublas/index.html"), std::vector<uint8_t>(html2.begin(), html2.end()));

  testing::ChildServer server({"python3", "-m", "http.server", "{port}", "--bind", "127.0.0.1"}, site.path());
  if (!server.up()) GTEST_SKIP() << "could not start a loopback HTTP server";
  auto run = [&](const std::string& index) {
    std::vector<std::string> args = {"check", app_path, "--format", "json"};
    if (!index.empty()) args.insert(args.end(), {"--resolve-deps", server.url(index)});
    auto r = testing::run_wheelcheck(args);
    return std::make_pair(r.exit_code, nlohmann::json::parse(r.out, nullptr, false));
  };
  auto [rc0, plain] = run("");
  ASSERT_EQ(rc0, 0);
  EXPECT_NE(plain.dump().find("come from the dependency nvidia-cublas"), std::string::npos) << plain.dump(1);
  auto [rc1, resolved] = run("simple");
  ASSERT_EQ(rc1, 0) << resolved.dump(1);
  EXPECT_EQ(resolved["wheels"].size(), 1u);  // the dependency is context, not judged
  EXPECT_EQ(resolved["wheels"][0]["findings"].dump().find("WC503"), std::string::npos) << resolved.dump(1);
  ASSERT_EQ(resolved["dependencies"].size(), 1u) << resolved.dump(1);
  EXPECT_EQ(resolved["dependencies"][0], server.url("files/" + good.filename()));
  // Beside another checked wheel, each wheel's binaries are parked in the run's spill file once its
  // own rules have run: the dependency (named by METADATA) is still fetched, and still resolves the
  // need of the binary read back for the judgement.
  std::string other = WheelBuilder("other", "1.0").add("other/a.py", "x").write(site.path());
  auto two =
      testing::run_wheelcheck({"check", app_path, other, "--format", "json", "--resolve-deps", server.url("simple")});
  auto both = nlohmann::json::parse(two.out, nullptr, false);
  ASSERT_EQ(two.exit_code, 0) << two.out << two.err;
  ASSERT_EQ(both["wheels"].size(), 2u) << both.dump(1);
  EXPECT_EQ(both["wheels"][0]["findings"].dump().find("WC503"), std::string::npos) << both.dump(1);
  EXPECT_EQ(both["dependencies"], resolved["dependencies"]) << both.dump(1);
  auto [rc2, hollowed] = run("empty");
  EXPECT_EQ(rc2, 1) << hollowed.dump(1);
  EXPECT_NE(hollowed.dump().find("needs libcublas.so.13, which is not found"), std::string::npos) << hollowed.dump(1);
  // Through a platform-independent meta-package (cuda-toolkit[cublas]): its extra's dependency is
  // fetched too, for the checked wheel's platform (x86_64, not the aarch64 build of the same version).
  std::filesystem::create_directories(site.file("meta/cuda-toolkit"));
  std::filesystem::create_directories(site.file("meta/nvidia-cublas"));
  WheelBuilder toolkit("cuda-toolkit", "13.2.2", "py3-none-any");
  toolkit.add("cuda_toolkit/__init__.py", "")
      .metadata(
          "Metadata-Version: 2.1\nName: cuda-toolkit\nVersion: 13.2.2\nProvides-Extra: cublas\n"
          "Requires-Dist: nvidia-cublas==13.4.1; extra == \"cublas\"\n");
  toolkit.write(site.file("files"));
  WheelBuilder arm134("nvidia-cublas", "13.4.1", "py3-none-manylinux_2_27_aarch64");
  arm134.purelib(false).add("nvidia/cu13/lib/libcublas.so.13", stub);
  arm134.write(site.file("files"));
  auto link = [](const WheelBuilder& w) {
    return "<a href=\"../../files/" + w.filename() + "\">" + w.filename() + "</a>\n";
  };
  std::string tk = link(toolkit), cb = link(arm134) + link(good);
  testing::write_file(site.file("meta/cuda-toolkit/index.html"), std::vector<uint8_t>(tk.begin(), tk.end()));
  testing::write_file(site.file("meta/nvidia-cublas/index.html"), std::vector<uint8_t>(cb.begin(), cb.end()));
  WheelBuilder app2("gpuapp2", "1.0", "cp312-cp312-manylinux_2_28_x86_64");
  app2.purelib(false)
      .add("gpuapp2/_core.cpython-312-x86_64-linux-gnu.so", user)
      .requires_dist("cuda-toolkit[cublas]==13.2.2");
  std::string app2_path = app2.write(site.path());
  auto r2 = testing::run_wheelcheck({"check", app2_path, "--format", "json", "--resolve-deps", server.url("meta")});
  auto meta = nlohmann::json::parse(r2.out, nullptr, false);
  ASSERT_EQ(r2.exit_code, 0) << r2.out << r2.err;
  EXPECT_EQ(meta["wheels"][0]["findings"].dump().find("WC503"), std::string::npos) << meta.dump(1);
  ASSERT_EQ(meta["dependencies"].size(), 2u) << meta.dump(1);
  EXPECT_EQ(meta["dependencies"][1], server.url("files/" + good.filename())) << meta.dump(1);

  // A dependency wheel that cannot be read is a note: it joins no install set and the checked
  // wheel's warning stays a warning.
  std::filesystem::create_directories(site.file("broken/nvidia-cublas"));
  const std::string junk = "nvidia_cublas-13.4.9-py3-none-manylinux_2_27_x86_64.whl";
  testing::write_file(site.file("files/" + junk), std::vector<uint8_t>(100, 'x'));
  std::string html3 = "<a href=\"../../files/" + junk + "\">" + junk + "</a>\n";
  testing::write_file(site.file("broken/nvidia-cublas/index.html"), std::vector<uint8_t>(html3.begin(), html3.end()));
  auto [rc4, broken] = run("broken");
  EXPECT_EQ(rc4, 0) << broken.dump(1);
  EXPECT_TRUE(broken["dependencies"].empty()) << broken.dump(1);
  EXPECT_NE(broken["dependency_notes"].dump().find("could not be read"), std::string::npos) << broken.dump(1);
  EXPECT_NE(broken.dump().find("come from the dependency nvidia-cublas"), std::string::npos) << broken.dump(1);

  auto [rc3, missing] = run("nowhere");
  EXPECT_EQ(rc3, 0);  // nothing found: the warning stays, and a note says why
  EXPECT_NE(missing["dependency_notes"].dump().find("nvidia-cublas"), std::string::npos) << missing.dump(1);
}

TEST_F(Gcc, UnmetNeedOfALibraryNothingLoads) {
  std::string leftover = needing("libquadmath.so.0");
  std::string ext = lib("ext.so", "int e(void){return 0;}", "");
  WheelBuilder b("fort", "1.0", "cp312-cp312-manylinux_2_28_x86_64");
  b.purelib(false).add("fort/_ext.cpython-312-x86_64-linux-gnu.so", ext).add("fort/lib/libgfortran.so.5", leftover);
  auto fs = testing::findings_of(b.build(), b.filename());
  EXPECT_TRUE(says(fs,
                   "WC503 [warning] fort/lib/libgfortran.so.5: needs libquadmath.so.0, which is nowhere in the wheel "
                   "or its install set"))
      << dump_of(fs);
  EXPECT_TRUE(says(fs, "nothing in them links fort/lib/libgfortran.so.5")) << dump_of(fs);
  EXPECT_FALSE(has_errors(fs)) << dump_of(fs);
  // Linked by the extension module, the same missing library is an error.
  // (-luser: DT_NEEDED libuser.so, as a build links it; a path given to the linker would be recorded whole.)
  std::string linking =
      lib("ext2.so", "int u(void); int e(void){return u();}", "-Wl,--no-as-needed -luser -Wl,-rpath,'$ORIGIN/lib'");
  run_command("cp " + shell_quote(dir.file("libuser.so")) + " " + shell_quote(dir.file("libuser.so.keep")));
  WheelBuilder c("fort", "1.0", "cp312-cp312-manylinux_2_28_x86_64");
  c.purelib(false).add("fort/_ext.cpython-312-x86_64-linux-gnu.so", linking).add("fort/lib/libuser.so", leftover);
  auto linked = testing::findings_of(c.build(), c.filename());
  EXPECT_TRUE(says(linked, "WC503 [error] fort/lib/libuser.so: needs libquadmath.so.0")) << dump_of(linked);
}

TEST(Calibration, WaiversSetFindingsAsideWithTheirReason) {
  testing::TempDir d;
  std::string pol =
      R"({"extends": "strict", "waive": [{"rule": "WC706", "path": "pkg/tests/**", "reason": "the test suite ships on purpose"}]})";
  testing::write_file(d.file("p.json"), std::vector<uint8_t>(pol.begin(), pol.end()));
  WheelBuilder b("pkg", "1.0");
  b.add("pkg/__init__.py", "").add("pkg/tests/test_x.py", "").add("tests/test_top.py", "");
  std::string wheel = b.write(d.path());
  auto r = testing::run_wheelcheck({"check", "--policy", d.file("p.json"), "--format", "json", wheel});
  auto j = nlohmann::json::parse(r.out);
  auto& w = j["wheels"][0];
  ASSERT_EQ(w["waived"].size(), 0u) << "strict forbids tests/** at the top only: " << w.dump();
  // Waive the top-level one instead: it moves from findings to waived, and the wheel passes.
  pol =
      R"({"extends": "strict", "waive": [{"rule": "WC706", "path": "tests/**", "reason": "the test suite ships on purpose"}]})";
  testing::write_file(d.file("p.json"), std::vector<uint8_t>(pol.begin(), pol.end()));
  r = testing::run_wheelcheck({"check", "--policy", d.file("p.json"), "--format", "json", wheel});
  ASSERT_EQ(r.exit_code, 0) << r.out;
  j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["wheels"][0]["waived"].size(), 1u) << j.dump();
  EXPECT_EQ(j["wheels"][0]["waived"][0]["reason"], "the test suite ships on purpose");
  EXPECT_EQ(j["wheels"][0]["waived"][0]["entry"], "tests/test_top.py");
  auto bad = testing::run_wheelcheck({"policy", "validate", d.file("p.json")});
  EXPECT_EQ(bad.exit_code, 0) << bad.out;
  std::string no_reason = R"({"waive": [{"rule": "WC706"}]})";
  testing::write_file(d.file("q.json"), std::vector<uint8_t>(no_reason.begin(), no_reason.end()));
  auto q = testing::run_wheelcheck({"policy", "validate", d.file("q.json")});
  EXPECT_EQ(q.exit_code, 2);
  EXPECT_NE(q.out.find("missing required key 'reason'"), std::string::npos) << q.out;
}

// Cubins (ELF for the GPU) in a platform-'any' wheel run on no host CPU: no native-data note
// (flashinfer-cubin ships 15,970 of them); a host .so beside them still gets one.
TEST(Calibration, CubinsInAnAnyWheel) {
  auto cubin = testing::tiny_elf(true, false, 190);
  auto host = testing::tiny_elf(true, false, 62);
  WheelBuilder b("kern-cubin", "1.0");
  b.add("kern_cubin/cubins/gemm_sm100f.cubin", std::string(cubin.begin(), cubin.end()));
  auto only = testing::findings_of(b.build(), b.filename());
  EXPECT_FALSE(testing::has_rule(only, "WC105")) << dump_of(only);
  b.add("kern_cubin/tools/" + std::string(100, 'x') + "/libhelper.so.1", std::string(host.begin(), host.end()));
  auto mixed = testing::findings_of(b.build(), b.filename());
  EXPECT_TRUE(says(mixed, "1 native file shipped as data")) << dump_of(mixed);
  EXPECT_TRUE(says(mixed, "/libhelper.so.1")) << "the end of a long path is kept: " << dump_of(mixed);
}

TEST(Calibration, AndroidAndIosTags) {
  auto arm64 = testing::tiny_elf(true, false, 183);
  auto android = [&](const std::string& abi) {
    WheelBuilder b("spam", "0.1.0", "cp313-cp313-android_24_" + abi);
    b.purelib(false).add("spam.cpython-313-aarch64-linux-android.so", std::string(arm64.begin(), arm64.end()));
    return testing::findings_of(b.build(), b.filename());
  };
  EXPECT_FALSE(testing::has_rule(android("arm64_v8a"), "WC501")) << dump_of(android("arm64_v8a"));
  EXPECT_TRUE(says(android("x86_64"), "ELF machine is aarch64, the platform tag says x86_64"))
      << dump_of(android("x86_64"));
  auto mach = testing::macho_thin(0x0100000c, 0x00110000, {"/usr/lib/libSystem.B.dylib"}, "@loader_path");
  WheelBuilder ios("spam", "0.1.0", "cp313-cp313-ios_17_0_arm64_iphoneos");
  ios.purelib(false).add("spam.cpython-313-iphoneos.so", std::string(mach.begin(), mach.end()));
  auto fs = testing::findings_of(ios.build(), ios.filename());
  EXPECT_FALSE(testing::has_rule(fs, "WC501")) << dump_of(fs);
  // CPython on iOS: extension modules link the host app's Python framework through @rpath, with no
  // LC_RPATH of their own (the app carries it). Met in an iOS wheel; on macOS it is unmet.
  auto framework =
      testing::macho_thin(0x0100000c, 0x000D0000, {"@rpath/Python.framework/Python", "/usr/lib/libSystem.B.dylib"}, "");
  WheelBuilder app("spam", "0.1.0", "cp313-cp313-ios_13_0_arm64_iphoneos");
  app.purelib(false).add("spam/_c.cpython-313-iphoneos.so", std::string(framework.begin(), framework.end()));
  auto on_ios = testing::findings_of(app.build(), app.filename());
  EXPECT_FALSE(testing::has_rule(on_ios, "WC503")) << dump_of(on_ios);
  WheelBuilder mac("spam", "0.1.0", "cp313-cp313-macosx_13_0_arm64");
  mac.purelib(false).add("spam/_c.cpython-313-darwin.so", std::string(framework.begin(), framework.end()));
  auto on_mac = testing::findings_of(mac.build(), mac.filename());
  EXPECT_TRUE(says(on_mac, "loads @rpath/Python.framework/Python")) << dump_of(on_mac);
}

TEST(Calibration, MacOsMinimums) {
  auto universal = [](uint32_t arm_minos) {
    return testing::macho_fat({{0x01000007, testing::macho_thin(0x01000007, 0x000A0D00, {}, "")},
                               {0x0100000c, testing::macho_thin(0x0100000c, arm_minos, {}, "")}});
  };
  auto check = [](const std::string& tag, const std::vector<uint8_t>& bin) {
    WheelBuilder b("mac", "1.0", "cp312-cp312-" + tag);
    b.purelib(false).add("mac/_c.cpython-312-darwin.so", std::string(bin.begin(), bin.end()));
    return testing::findings_of(b.build(), b.filename());
  };
  // arm64 starts at macOS 11: a 10.13 universal2 tag with an 11.0 arm64 slice is right.
  EXPECT_FALSE(testing::has_rule(check("macosx_10_13_universal2", universal(0x000B0000)), "WC506"));
  auto arm = [](uint32_t minos) { return testing::macho_thin(0x0100000c, minos, {}, ""); };
  auto minor = check("macosx_12_0_arm64", arm(0x000C0300));
  EXPECT_TRUE(says(minor, "WC506 [warning] mac/_c.cpython-312-darwin.so: arm64 slice needs macOS 12.3"))
      << dump_of(minor);
  auto major = check("macosx_11_0_arm64", arm(0x000D0000));
  EXPECT_TRUE(says(major, "WC506 [error] mac/_c.cpython-312-darwin.so: arm64 slice needs macOS 13.0"))
      << dump_of(major);
}

TEST(Calibration, MetadataVersionMinorWarnsMajorFails) {
  auto check = [](const std::string& mv) {
    WheelBuilder b("meta", "1.0");
    b.metadata("Metadata-Version: " + mv + "\nName: meta\nVersion: 1.0\n");
    return testing::findings_of(b.build(), b.filename());
  };
  EXPECT_FALSE(testing::has_rule(check("2.5"), "WC202")) << dump_of(check("2.5"));
  EXPECT_TRUE(says(check("2.7"), "WC202 [warning]")) << dump_of(check("2.7"));
  EXPECT_TRUE(says(check("2.0"), "WC202 [warning]")) << dump_of(check("2.0"));
  EXPECT_TRUE(says(check("3.0"), "WC202 [error]")) << dump_of(check("3.0"));
  EXPECT_TRUE(says(check("1.3"), "WC202 [error]")) << dump_of(check("1.3"));
}

TEST(Calibration, Wc403OffReadsEverything) {
  testing::TempDir d;
  std::string zeros(80u << 20, '\0');  // 80 MiB of zeros deflate to ~80 KiB: 1000:1
  WheelBuilder b("padded", "1.0");
  b.add("padded/__init__.py", "").add("padded/blob.bin", zeros);
  auto zip = b.build();
  auto on = testing::findings_of(zip, b.filename());
  EXPECT_TRUE(says(on, "WC403 [error] : the wheel's")) << dump_of(on);
  std::string pol = R"({"rules": {"WC403": "off"}})";
  testing::write_file(d.file("off.json"), std::vector<uint8_t>(pol.begin(), pol.end()));
  auto off = testing::findings_of(zip, b.filename(), d.file("off.json"));
  EXPECT_TRUE(off.empty()) << dump_of(off);  // read, hashed and found equal to RECORD
  auto facts = testing::facts_of(zip, b.filename());
  EXPECT_TRUE(facts.find_entry("padded/blob.bin")->sha256.empty());  // default: refused uninflated
}

TEST(Calibration, UnknownCudaVariantIsSaid) {
  WheelBuilder b("gpu", "1.0+cu999", "cp312-cp312-manylinux_2_28_x86_64");
  b.purelib(false);
  auto fs = testing::findings_of(b.build(), b.filename());
  EXPECT_TRUE(
      says(fs, "WC606 [warning] : CUDA variant cu999 (local version +cu999) is not in the policy's variant table"))
      << dump_of(fs);
  auto py = testing::findings_of(b.build(), b.filename(), "pytorch");
  EXPECT_TRUE(says(py, "WC606 [error]")) << dump_of(py);
}

TEST(Requirements, Pep508MarkersAgainstTheWheelsTags) {
  auto env = environment_for(parse_wheel_filename("torch-2.15.0-cp312-cp312-manylinux_2_28_x86_64.whl"));
  auto truth = [&](const std::string& line) {
    auto r = parse_requirement(line);
    EXPECT_TRUE(r) << line;
    return r ? evaluate(*r, env) : Truth::unknown;
  };
  EXPECT_EQ(truth("nvidia-cudnn-cu13==9.26.0.51; platform_system == \"Linux\""), Truth::yes);
  EXPECT_EQ(truth("a; platform_system == 'Windows' or (sys_platform == 'linux' and platform_machine == 'x86_64')"),
            Truth::yes);
  EXPECT_EQ(truth("a; python_version < \"3.12\""), Truth::no);
  EXPECT_EQ(truth("a; python_version >= '3.10' and extra == 'ctk'"), Truth::no);
  EXPECT_EQ(truth("a; 'linux' in sys_platform"), Truth::yes);
  EXPECT_EQ(truth("a; platform_release > '5'"), Truth::unknown);
  auto r = parse_requirement("cuda-toolkit[cublas, cudart]==13.2.2; platform_system == \"Linux\"");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->canonical_name, "cuda-toolkit");
  EXPECT_EQ(r->extras, (std::vector<std::string>{"cublas", "cudart"}));
  EXPECT_EQ(r->specifier, "==13.2.2");
  std::string why;
  EXPECT_FALSE(parse_requirement("a; " + std::string(100, '(') + "os_name == 'nt'" + std::string(100, ')'), &why));
  EXPECT_NE(why.find("nested more than 32"), std::string::npos) << why;
  EXPECT_FALSE(parse_requirement("-bad", &why));
  EXPECT_FALSE(parse_requirement("a >= 1.0 ; os_name ==", &why));
  auto any = environment_for(parse_wheel_filename("six-1.16.0-py2.py3-none-any.whl"));
  EXPECT_FALSE(any.count("sys_platform"));
}

}  // namespace
}  // namespace wc
