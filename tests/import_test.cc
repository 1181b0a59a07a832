// wheelsmoke import: wheels gcc builds here, installed by pip into a fresh venv and imported for
// real. Each case is held against the loader (what the process reports) and against wheelcheck's
// own verdict on the same wheels (WS304 must agree with WC503/WC514). Extension modules are built
// without Python.h: a multi-phase init (PyModuleDef_Init, stable ABI) declared by hand, so any
// CPython >= 3.7 imports them from `_ext.abi3.so`.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "policy/policy.h"
#include "smoke/import/import_truth.h"
#include "smoke/smoke_rules.h"
#include "support/test_support.h"
#include "wheel_builder.h"

namespace wc {
namespace {

using testing::run_command;
using testing::shell_quote;
using testing::WheelBuilder;

const char* kTag = "cp37-abi3-manylinux_2_17_x86_64";

// The module's init: calls `body` (C statements), then hands CPython its module definition.
std::string module_source(const std::string& name, const std::string& decls, const std::string& body) {
  return "struct Base { long refcnt; void* type; void* init; long index; void* copy; };\n"
         "struct Def { struct Base base; const char* name; const char* doc; long size; void* methods;\n"
         "             void* slots; void* traverse; void* clear; void* free_; };\n"
         "extern void* PyModuleDef_Init(struct Def*);\n" +
         decls + "\nstatic struct Def def = {{1, 0, 0, 0, 0}, \"" + name +
         "\", 0, 0, 0, 0, 0, 0, 0};\n"
         "void* PyInit_" +
         name + "(void) { " + body + " return PyModuleDef_Init(&def); }\n";
}

struct Built {
  std::string file;  // the wheel
};

class Import : public ::testing::Test {
 protected:
  testing::TempDir dir;
  std::string wheels() { return dir.file("wheels"); }

  void SetUp() override {
    if (run_command("python3 -m venv --help >/dev/null 2>&1").exit_code != 0)
      GTEST_SKIP() << "python3 has no venv module (scripts/install-deps.sh installs python3-venv)";
    std::filesystem::create_directories(wheels());
  }

  // A shared library from C source, linked with `flags` in this directory.
  std::string lib(const std::string& name, const std::string& src, const std::string& flags = "") {
    std::string c = dir.file(name + ".c");
    std::ofstream(c) << src;
    auto r = run_command("gcc -O1 -shared -fPIC " + shell_quote(c) + " -o " + shell_quote(dir.file(name)) + " -L" +
                         shell_quote(dir.path()) + " " + flags);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::ifstream in(dir.file(name), std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }

  // A package `pkg` with `files` (install path -> bytes), written into wheels().
  std::string wheel(const std::string& name, const std::vector<std::pair<std::string, std::string>>& files,
                    const std::vector<std::string>& requires_dist = {}, const std::string& tag = kTag) {
    WheelBuilder w(name, "1.0", tag);
    w.purelib(false);
    for (const auto& r : requires_dist) w.requires_dist(r);
    for (const auto& [path, bytes] : files) w.add(path, bytes);
    return w.write(wheels());
  }

  struct Result {
    int exit_code = -1;
    nlohmann::json report;
    std::string raw;
    double seconds = 0;
    // The item of the wheel whose file name starts with `name`.
    const nlohmann::json& item(const std::string& name) const {
      for (const auto& i : report["artifacts"])
        if (std::filesystem::path(i["path"].get<std::string>()).filename().string().rfind(name + "-", 0) == 0) return i;
      static const nlohmann::json none = nlohmann::json::object();
      return none;
    }
    // Messages of `rule` in the item.
    std::vector<std::string> said(const std::string& name, const std::string& rule) const {
      std::vector<std::string> out;
      const auto& i = item(name);
      if (i.contains("findings"))
        for (const auto& f : i["findings"])
          if (f["rule"] == rule) out.push_back(f["message"].get<std::string>());
      return out;
    }
  };

  Result smoke(const std::vector<std::string>& files, const std::string& extra = "", const std::string& env = "") {
    std::string cmd = env + " " + std::string(WS_BINARY) + " import --no-index --find-links " + shell_quote(wheels()) +
                      " --format json " + extra;
    for (const auto& f : files) cmd += " " + shell_quote(f);
    auto t0 = std::chrono::steady_clock::now();
    auto r = run_command(cmd);
    Result out;
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    out.exit_code = r.exit_code;
    out.raw = r.out + r.err;
    out.report = nlohmann::json::parse(r.out, nullptr, false);
    return out;
  }

  // wheelcheck's verdict on the same files: the rule IDs of error findings for `entry`.
  std::string gate(const std::vector<std::string>& files, const std::string& entry, const std::string& extra = "") {
    std::vector<std::string> args = {"check", "--format", "json"};
    if (!extra.empty()) args.push_back(extra);
    args.insert(args.end(), files.begin(), files.end());
    auto r = testing::run_wheelcheck(args);
    auto j = nlohmann::json::parse(r.out, nullptr, false);
    std::string rules;
    if (j.is_discarded()) return "unparsable: " + r.out + r.err;
    for (const auto& w : j["wheels"])
      for (const auto& f : w["findings"])
        if (f["severity"] == "error" && f.value("entry", "") == entry) rules += f["rule"].get<std::string>() + " ";
    return rules;
  }

  // The module `pkg/_ext.abi3.so` calling own() from `pkg/libown.so` (RUNPATH $ORIGIN).
  std::vector<std::pair<std::string, std::string>> own_library_package(const std::string& pkg,
                                                                       const std::string& lib_src,
                                                                       const std::string& calls) {
    std::string own = lib("libown.so", lib_src, "-Wl,-soname,libown.so");
    std::string ext = lib("_ext.abi3.so", module_source("_ext", "int " + calls + "(void);", calls + "();"),
                          "-lown -Wl,-rpath,'$ORIGIN'");
    return {{pkg + "/__init__.py", "from . import _ext\n"}, {pkg + "/_ext.abi3.so", ext}, {pkg + "/libown.so", own}};
  }
};

bool any_has(const std::vector<std::string>& v, const std::string& text) {
  return std::any_of(v.begin(), v.end(), [&](const std::string& s) { return s.find(text) != std::string::npos; });
}

// The wheel imports and loads its own library; every library where wheelcheck said; exit 0.
TEST_F(Import, CleanWheelLoadsOnlyItsOwnLibrary) {
  auto files = own_library_package("cleanpkg", "int own(void){return 1;}", "own");
  files.push_back({"cleanpkg/tests/__init__.py", "raise SystemExit('tests are never imported')\n"});
  files.push_back({"helper_mod.py", "X = 1\n"});
  std::string w = wheel("cleanpkg", files);
  auto r = smoke({w});
  ASSERT_FALSE(r.report.is_discarded()) << r.raw;
  EXPECT_EQ(r.exit_code, 0) << r.report.dump(1);
  const auto& item = r.item("cleanpkg");
  EXPECT_EQ(item["verdict"], "pass") << item.dump(1);
  EXPECT_EQ(item["facts"]["import_names"], nlohmann::json({"cleanpkg", "helper_mod"})) << item.dump(1);
  ASSERT_TRUE(item.contains("notes")) << item.dump(1);
  EXPECT_NE(item["notes"][0].get<std::string>().find("2 libraries of the run loaded, all where wheelcheck predicted"),
            std::string::npos)
      << item.dump(1);
  EXPECT_EQ(item["facts"]["imports"][0]["result"], "ok") << item.dump(1);
  EXPECT_EQ(gate({w}, "cleanpkg/_ext.abi3.so"), "");
}

// An undefined symbol: the import fails with the loader's words (WS301), and wheelcheck's WC514
// said so first, so the differential agrees (no WS304).
TEST_F(Import, UndefinedSymbolFailsAndTheGateAgrees) {
  auto files = own_library_package("undefpkg", "int own(void){return 1;}", "own_missing");
  std::string w = wheel("undefpkg", files);
  auto r = smoke({w});
  ASSERT_FALSE(r.report.is_discarded()) << r.raw;
  EXPECT_EQ(r.exit_code, 1);
  auto ws301 = r.said("undefpkg", "WS301");
  EXPECT_TRUE(any_has(ws301, "undefined symbol: own_missing")) << r.item("undefpkg").dump(1);
  EXPECT_TRUE(r.said("undefpkg", "WS304").empty()) << r.item("undefpkg").dump(1);
  EXPECT_NE(gate({w}, "undefpkg/_ext.abi3.so").find("WC514"), std::string::npos);
}

// A library found only through LD_LIBRARY_PATH: WS302 names its path and the module that needs it.
// wheelcheck's WC503 error stands (the load relied on something outside the install set: not a
// false alarm).
TEST_F(Import, LibraryFromLdLibraryPathIsOutsideTheInstallSet) {
  std::filesystem::create_directories(dir.file("elsewhere"));
  lib("elsewhere/libhidden.so", "int hidden(void){return 2;}", "-Wl,-soname,libhidden.so");
  std::string ext = lib("_ext.abi3.so", module_source("_ext", "int hidden(void);", "hidden();"),
                        "-L" + shell_quote(dir.file("elsewhere")) + " -lhidden");
  std::string w = wheel("ldpkg", {{"ldpkg/__init__.py", "from . import _ext\n"}, {"ldpkg/_ext.abi3.so", ext}});
  auto r = smoke({w}, "", "LD_LIBRARY_PATH=" + shell_quote(dir.file("elsewhere")));
  ASSERT_FALSE(r.report.is_discarded()) << r.raw;
  EXPECT_EQ(r.exit_code, 1);
  auto ws302 = r.said("ldpkg", "WS302");
  ASSERT_EQ(ws302.size(), 1u) << r.item("ldpkg").dump(1);
  EXPECT_NE(ws302[0].find(dir.file("elsewhere") + "/libhidden.so"), std::string::npos) << ws302[0];
  EXPECT_NE(ws302[0].find("LD_LIBRARY_PATH"), std::string::npos) << ws302[0];
  EXPECT_NE(ws302[0].find("needed by ldpkg 1.0 (ldpkg/_ext.abi3.so)"), std::string::npos) << ws302[0];
  EXPECT_TRUE(r.said("ldpkg", "WS304").empty()) << r.item("ldpkg").dump(1);
  EXPECT_NE(gate({w}, "ldpkg/_ext.abi3.so").find("WC503"), std::string::npos);
  // Without LD_LIBRARY_PATH the same wheel fails to import, as wheelcheck said.
  auto plain = smoke({w});
  EXPECT_TRUE(any_has(plain.said("ldpkg", "WS301"), "libhidden.so: cannot open shared object file"))
      << plain.item("ldpkg").dump(1);
  EXPECT_TRUE(plain.said("ldpkg", "WS304").empty()) << plain.item("ldpkg").dump(1);
}

// Two wheels vendoring one runtime under auditwheel's hashed names: importing the one that also
// imports the other loads both copies (WS303).
TEST_F(Import, TwoVendoredCopiesOfOneRuntime) {
  auto vendored = [&](const std::string& pkg, const std::string& hashed) {
    std::string gomp = lib(hashed, "int GOMP_parallel_like(void){return 3;}", "-Wl,-soname," + hashed);
    std::string ext =
        lib("_ext.abi3.so", module_source("_ext", "int GOMP_parallel_like(void);", "GOMP_parallel_like();"),
            "-l:" + hashed + " -Wl,-rpath,'$ORIGIN/../" + pkg + ".libs'");
    return std::vector<std::pair<std::string, std::string>>{{pkg + "/_ext.abi3.so", ext},
                                                            {pkg + ".libs/" + hashed, gomp}};
  };
  auto a = vendored("gompa", "libgomp-1a2b3c4d.so.1");
  a.push_back({"gompa/__init__.py", "from . import _ext\n"});
  std::string wa = wheel("gompa", a);
  auto b = vendored("gompb", "libgomp-5e6f7a8b.so.1");
  b.push_back({"gompb/__init__.py", "import gompa\nfrom . import _ext\n"});
  std::string wb = wheel("gompb", b, {"gompa"});
  auto r = smoke({wa, wb});
  ASSERT_FALSE(r.report.is_discarded()) << r.raw;
  EXPECT_EQ(r.exit_code, 1);
  auto ws303 = r.said("gompb", "WS303");
  ASSERT_EQ(ws303.size(), 1u) << r.item("gompb").dump(1);
  EXPECT_NE(ws303[0].find("2 copies of libgomp"), std::string::npos) << ws303[0];
  EXPECT_NE(ws303[0].find("gompa.libs/libgomp-1a2b3c4d.so.1"), std::string::npos) << ws303[0];
  EXPECT_NE(ws303[0].find("gompb.libs/libgomp-5e6f7a8b.so.1"), std::string::npos) << ws303[0];
  EXPECT_TRUE(r.said("gompa", "WS303").empty()) << r.item("gompa").dump(1);  // alone, one copy
}

// A policy that allows a library the system lacks: wheelcheck passes the module, the import fails;
// the differential calls it a miss of the gate (WS304).
TEST_F(Import, AMissOfTheGateIsReported) {
  std::filesystem::create_directories(dir.file("elsewhere"));
  lib("elsewhere/libnotonthesystem.so", "int gone(void){return 2;}", "-Wl,-soname,libnotonthesystem.so");
  std::string ext = lib("_ext.abi3.so", module_source("_ext", "int gone(void);", "gone();"),
                        "-L" + shell_quote(dir.file("elsewhere")) + " -lnotonthesystem");
  std::string w = wheel("misspkg", {{"misspkg/__init__.py", "from . import _ext\n"}, {"misspkg/_ext.abi3.so", ext}});
  std::string policy = dir.file("policy.json");
  std::ofstream(policy) << R"({"extends": "default", "linux": {"allowed_libraries": ["libnotonthesystem.so"]}})";
  EXPECT_EQ(gate({w}, "misspkg/_ext.abi3.so", "--policy=" + policy), "");
  auto r = smoke({w}, "--policy " + shell_quote(policy));
  ASSERT_FALSE(r.report.is_discarded()) << r.raw;
  EXPECT_EQ(r.exit_code, 1);
  auto ws304 = r.said("misspkg", "WS304");
  ASSERT_EQ(ws304.size(), 1u) << r.item("misspkg").dump(1);
  EXPECT_NE(ws304[0].find("misspkg/_ext.abi3.so failed to load"), std::string::npos) << ws304[0];
  EXPECT_NE(ws304[0].find("a miss of the gate"), std::string::npos) << ws304[0];
}

// The converse: a library loads that wheelcheck says cannot (it needs libarchive.so.13, which this
// machine has in /usr/lib and no manylinux policy allows). The artifact is fine here; the gate's
// prediction was wrong for this machine: a warning, never the artifact's error.
TEST_F(Import, AFalseAlarmOfTheGateIsAWarning) {
  std::string ext =
      lib("_ext.abi3.so", module_source("_ext", "int archive_version_number(void);", "archive_version_number();"),
          "-Wl,--no-as-needed -larchive");
  std::string w = wheel("alarmpkg", {{"alarmpkg/__init__.py", "from . import _ext\n"}, {"alarmpkg/_ext.abi3.so", ext}});
  EXPECT_NE(gate({w}, "alarmpkg/_ext.abi3.so"), "");  // WC503: libarchive.so.13 is no allowed library
  auto r = smoke({w});
  ASSERT_FALSE(r.report.is_discarded()) << r.raw;
  bool warned = false;
  for (const auto& f : r.item("alarmpkg")["findings"])
    if (f["rule"] == "WS304") {
      EXPECT_EQ(f["severity"], "warning") << f.dump();
      EXPECT_NE(f["message"].get<std::string>().find("a false alarm of the gate"), std::string::npos) << f.dump();
      warned = true;
    }
  EXPECT_TRUE(warned) << r.item("alarmpkg").dump(1);
  EXPECT_EQ(r.exit_code, 0) << r.item("alarmpkg").dump(1);
}

// A library no import loads, no extension module, that fails to open only for a library of an
// environment this one lacks (bitsandbytes' libbitsandbytes_cuda118.so beside a CUDA 13 torch): a
// candidate a loader picks elsewhere, a warning naming what it needs; not an import failure.
TEST_F(Import, ACandidateForAnotherEnvironmentIsAWarning) {
  lib("libcudart11.so", "int cudaMalloc(void){return 0;}", "-Wl,-soname,libcudart.so.11.0");
  std::string cand = lib("libcand_cuda118.so", "int cudaMalloc(void); int k(void){return cudaMalloc();}",
                         "-Wl,--no-as-needed " + shell_quote(dir.file("libcudart11.so")));
  std::string w = wheel("candpkg", {{"candpkg/__init__.py", ""}, {"candpkg/libcand_cuda118.so", cand}});
  auto r = smoke({w});
  ASSERT_FALSE(r.report.is_discarded()) << r.raw;
  EXPECT_EQ(r.exit_code, 0) << r.item("candpkg").dump(1);
  auto ws301 = r.said("candpkg", "WS301");
  ASSERT_EQ(ws301.size(), 1u) << r.item("candpkg").dump(1);
  EXPECT_NE(ws301[0].find("failed on libcudart.so.11.0, a library of CUDA 11"), std::string::npos) << ws301[0];
  EXPECT_TRUE(r.said("candpkg", "WS304").empty()) << r.item("candpkg").dump(1);
}

// Bad artifacts are bounded: a hang, a crash, a flood, a fork that keeps the pipes, a thread that
// keeps the interpreter alive. Each is its finding, the batch goes on, and the run ends promptly.
TEST_F(Import, MisbehavingImportsAreBounded) {
  std::string pidfile = dir.file("child.pid");
  std::vector<std::string> ws = {
      wheel("hangs", {{"hangs/__init__.py", "import time\nwhile True:\n    time.sleep(0.1)\n"}}, {}, "py3-none-any"),
      wheel("crashes", {{"crashes/__init__.py", "import ctypes\nctypes.string_at(0)\n"}}, {}, "py3-none-any"),
      wheel("floods", {{"floods/__init__.py", "import sys\nfor i in range(3000):\n    print('x' * 1000)\n"}}, {},
            "py3-none-any"),
      wheel("forks",
            {{"forks/__init__.py",
              "import os, time\npid = os.fork()\nif pid == 0:\n    time.sleep(600)\n    os._exit(0)\n"
              "open(" +
                  nlohmann::json(pidfile).dump() + ", 'w').write(str(pid))\n"}},
            {}, "py3-none-any"),
      wheel(
          "threads",
          {{"threads/__init__.py",
            "import threading, time\nthreading.Thread(target=lambda: time.sleep(600), name='stuck-worker').start()\n"}},
          {}, "py3-none-any"),
      wheel("fine", {{"fine/__init__.py", "VALUE = 1\n"}}, {}, "py3-none-any"),
  };
  auto r = smoke(ws, "--timeout 4");
  ASSERT_FALSE(r.report.is_discarded()) << r.raw;
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_LT(r.seconds, 120) << "the venv, six wheels and a 4 s hang";
  EXPECT_TRUE(any_has(r.said("hangs", "WS301"), "did not finish within 4 s (killed with its process group)"))
      << r.item("hangs").dump(1);
  EXPECT_TRUE(any_has(r.said("hangs", "WS301"), "__init__.py")) << "where it hung: " << r.item("hangs").dump(1);
  EXPECT_TRUE(any_has(r.said("crashes", "WS301"), "crashed: killed by SIGSEGV")) << r.item("crashes").dump(1);
  EXPECT_TRUE(any_has(r.said("floods", "WS306"), "printed 3.0 MB")) << r.item("floods").dump(1);
  EXPECT_EQ(r.item("floods")["verdict"], "pass") << r.item("floods").dump(1);
  EXPECT_TRUE(any_has(r.said("forks", "WS306"), "left a child process running")) << r.item("forks").dump(1);
  EXPECT_TRUE(any_has(r.said("threads", "WS306"), "non-daemon threads stuck-worker")) << r.item("threads").dump(1);
  EXPECT_EQ(r.item("fine")["verdict"], "pass") << r.item("fine").dump(1);
  // The forked child was killed with its process group.
  std::ifstream pid_in(pidfile);
  int pid = 0;
  ASSERT_TRUE(pid_in >> pid) << "the fork wrote no pid";
  EXPECT_NE(kill(pid, 0), 0) << "the forked child " << pid << " outlived wheelsmoke";
}

// What the process did is judged, not what its messages look like: a .pth file printing at
// startup is output, not a broken protocol; a clean import whose interpreter then crashes on the
// way out fails; "cannot import name" from an extension module that loaded blames no library; an
// import that crashes before the library pass opens anything blames none of the libraries.
TEST_F(Import, JudgesTheProcessNotItsMessages) {
  std::string plain = lib("libplain.so", "int plain(void){return 1;}", "-Wl,-soname,libplain.so");
  std::string ext = lib("_ext.abi3.so", module_source("_ext", "", ""));
  std::vector<std::string> ws = {
      wheel("pthprint",
            {{"pthprint/__init__.py", "VALUE = 1\n"},
             {"pthprint-hello.pth", "import sys; print('hello from a .pth file')\n"}},
            {}, "py3-none-any"),
      wheel("exitcrash",
            {{"exitcrash/__init__.py",
              "import atexit, os, signal\natexit.register(lambda: os.kill(os.getpid(), signal.SIGSEGV))\n"}},
            {}, "py3-none-any"),
      wheel("noname", {{"noname/__init__.py", "from ._ext import missing\n"}, {"noname/_ext.abi3.so", ext}}),
      wheel("crashfirst",
            {{"crashfirst/__init__.py", "import ctypes\nctypes.string_at(0)\n"}, {"crashfirst/libplain.so", plain}}),
  };
  auto r = smoke(ws, "--timeout 20");
  ASSERT_FALSE(r.report.is_discarded()) << r.raw;
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.item("pthprint")["verdict"], "pass") << r.item("pthprint").dump(1);
  EXPECT_TRUE(
      any_has(r.said("exitcrash", "WS301"), "finished, but the interpreter then crashed at exit: killed by SIGSEGV"))
      << r.item("exitcrash").dump(1);
  auto ws301 = r.said("noname", "WS301");
  EXPECT_TRUE(any_has(ws301, "cannot import name 'missing'")) << r.item("noname").dump(1);
  EXPECT_TRUE(r.said("noname", "WS304").empty()) << "the module loaded: " << r.item("noname").dump(1);
  const auto& crashfirst = r.item("crashfirst");
  EXPECT_TRUE(any_has(r.said("crashfirst", "WS301"), "import crashfirst before opening the wheel's libraries crashed"))
      << crashfirst.dump(1);
  EXPECT_FALSE(any_has(r.said("crashfirst", "WS301"), "libplain.so")) << crashfirst.dump(1);
  EXPECT_EQ(crashfirst["facts"]["verdicts"].value("crashfirst/libplain.so", ""), "loaded by ctypes.CDLL")
      << crashfirst.dump(1);
}

// --python: the wheels must already be installed there; one that is not is WS305, never a pass.
TEST_F(Import, PythonEnvironmentMustHaveTheWheel) {
  std::string w = wheel("absentpkg", {{"absentpkg/__init__.py", ""}}, {}, "py3-none-any");
  auto r = run_command(std::string(WS_BINARY) + " import --python python3 --format json " + shell_quote(w));
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out << r.err;
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(j.dump().find("WS305"), std::string::npos) << j.dump(1);
  EXPECT_NE(j.dump().find("absentpkg is not installed in the environment of python3"), std::string::npos) << j.dump(1);
  // A venv kept by one run is the environment of the next (--python), with the same verdict.
  std::string venv = dir.file("kept");
  auto first = smoke({w}, "--keep-venv " + shell_quote(venv));
  EXPECT_EQ(first.exit_code, 0) << first.raw;
  auto again = run_command(std::string(WS_BINARY) + " import --python " + shell_quote(venv + "/bin/python") +
                           " --format sarif " + shell_quote(w));
  EXPECT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_FALSE(nlohmann::json::parse(again.out, nullptr, false).is_discarded()) << again.out;
}

TEST(ImportUsage, NotAWheelFileIsAUsageError) {
  auto r = run_command(std::string(WS_BINARY) + " import /nonexistent/x-1.0-py3-none-any.whl");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("/nonexistent/x-1.0-py3-none-any.whl: not a wheel file"), std::string::npos) << r.err;
  auto both = run_command(std::string(WS_BINARY) + " import --python python3 --no-index x.whl");
  EXPECT_EQ(both.exit_code, 2) << both.out << both.err;
}

// The placement of a loaded object and the torch rule, without a process: an Environment and an
// Observation written here.
TEST(ImportJudge, PlacesObjectsAndFlagsATorchCudaLibraryFromTheSystem) {
  auto env = smoke::read_environment(
      {{"python", "3.12.1"},
       {"base_prefix", "/opt/py"},
       {"distributions", {{{"name", "Pkg"}, {"version", "1"}, {"files", {{"pkg/x.so", "/venv/sp/pkg/x.so", ""}}}}}}});
  using smoke::Origin;
  EXPECT_EQ(smoke::place(env, "/venv/sp/pkg/x.so").origin, Origin::installed);
  EXPECT_EQ(smoke::place(env, "/opt/py/lib/python3.12/lib-dynload/_ctypes.cpython-312-x86_64-linux-gnu.so").origin,
            Origin::interpreter);
  EXPECT_EQ(smoke::place(env, "/usr/lib/x86_64-linux-gnu/libz.so.1").origin, Origin::system);
  EXPECT_EQ(smoke::place(env, "/lib64/ld-linux-x86-64.so.2").origin, Origin::system);
  EXPECT_EQ(smoke::place(env, "/usr/local/cuda/lib64/libcudart.so.13").origin, Origin::outside);
  EXPECT_EQ(smoke::place(env, "/usr/lib/python3/dist-packages/numpy/core/x.so").origin, Origin::outside);
  EXPECT_EQ(smoke::place(env, "/opt/py/lib/python3.12/site-packages/other.so").origin, Origin::outside);
  EXPECT_EQ(smoke::describe(env, "/venv/sp/pkg/x.so"), "Pkg 1 (pkg/x.so)");
  EXPECT_THROW(smoke::read_environment({{"python", 3}}), std::runtime_error);

  auto judge_with = [&](const std::string& project) {
    WheelBuilder w(project, "2.15.0", "cp312-cp312-manylinux_2_28_x86_64");
    w.purelib(false).add(project + "/__init__.py", "");
    std::vector<WheelFacts> run;
    run.push_back(testing::facts_of(w.build(), w.filename()));
    smoke::Gate gate(std::move(run), load_policy("default"));
    smoke::Judge judge(env, gate);
    Policy none;
    FindingSink s(none, smoke::smoke_rules());
    smoke::Observation o;
    o.what = "import " + project;
    o.loaded = {{"libcudart.so.13", "/usr/lib/x86_64-linux-gnu/libcudart.so.13"},
                {"libz.so.1", "/usr/lib/x86_64-linux-gnu/libz.so.1"}};
    judge.observe(o, s);
    return s.take();
  };
  auto torch = judge_with("torch");
  ASSERT_EQ(torch.size(), 1u) << testing::dump(torch);
  EXPECT_EQ(torch[0].rule, "WS302");
  EXPECT_NE(torch[0].message.find("the CUDA library libcudart.so.13 from the system"), std::string::npos)
      << torch[0].message;
  EXPECT_TRUE(judge_with("other").empty()) << "a system libcudart is the system's business elsewhere";
}

}  // namespace
}  // namespace wc
