// Symbol audits and PyPI's 2026 upload rules (issue 20), each on inputs built here: extensions from
// gcc that import chosen Python C-API symbols (WC511), C++ libraries built with either libstdc++
// string ABI and cross-checked against `nm -D | c++filt` (WC512), a library whose DT_NEEDED entry was
// renamed behind its version needs (WC513, cross-checked with readelf), entry points, .pth files,
// signature files, Metadata-Version 2.6 and a zip that is also a tar (checked with Python's tarfile).
#include <gtest/gtest.h>

#include <cstring>

#include "binary/binary_facts.h"
#include "binary/mangled.h"
#include "pipeline/check.h"
#include "support/fixtures.h"
#include "support/test_support.h"
#include "util/strings.h"
#include "wheel_builder.h"

namespace wc {
namespace {

using testing::has_rule;
using testing::run_command;
using testing::shell_quote;
using testing::WheelBuilder;

using testing::says;

class Symbols : public ::testing::Test {
 protected:
  testing::TempDir dir;
  std::string build(const std::string& name, const std::string& src, const std::string& flags = "",
                    const std::string& lang = "c") {
    std::string file = dir.file(name + (lang == "c" ? ".c" : ".cc"));
    testing::write_file(file, std::vector<uint8_t>(src.begin(), src.end()));
    auto r = run_command(std::string(lang == "c" ? "gcc" : "g++") + " -O1 -shared -fPIC " + shell_quote(file) + " -o " +
                         shell_quote(dir.file(name)) + " -L" + shell_quote(dir.path()) + " " + flags);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    auto b = testing::read_file(dir.file(name));
    return std::string(b.begin(), b.end());
  }
  // An extension module `mod` that calls each of `imports` (declared here, not from Python.h, so
  // no Python headers are needed) and defines `own` itself.
  std::string extension(const std::string& mod, const std::vector<std::string>& imports, const std::string& own = "",
                        const std::string& exports = "PyInit_") {
    std::string src;
    for (const auto& s : imports) src += "extern void* " + s + "(void*);\n";
    if (!own.empty()) src += "void* " + own + "(void* p) { return p; }\n";
    src += "void* " + exports + mod + "(void) { void* p = 0;\n";
    for (const auto& s : imports) src += "  p = " + s + "(p);\n";
    src += "  return p; }\n";
    return build(mod + ".so", src);
  }
  std::string dep_text() {
    auto b = testing::read_file(dir.file("libdep.so.1"));
    return std::string(b.begin(), b.end());
  }
  std::vector<Finding> check(const WheelBuilder& w, const std::string& policy = "default") {
    return testing::findings_of(w.build(), w.filename(), policy);
  }
};

// abi3audit's two findings (outside the stable ABI; stable only later than the tag) per binary, and
// what it gets wrong: a Py-prefixed symbol the extension defines itself is not an import.
TEST_F(Symbols, Abi3ImportsAreAuditedAgainstTheTaggedVersion) {
  std::string so =
      extension("_ext", {"PyUnicode_AsUTF8AndSize", "_PyObject_MakeTpCall", "PyLong_FromLong"}, "PyMyProj_Helper");
  WheelBuilder w("ext", "1.0", "cp38-abi3-manylinux_2_28_x86_64");
  w.purelib(false).add("ext/_ext.abi3.so", so);
  auto fs = check(w);
  EXPECT_TRUE(says(fs, "WC511 [error]")) << testing::dump(fs);
  EXPECT_TRUE(says(fs, "PyUnicode_AsUTF8AndSize (stable from 3.10)")) << testing::dump(fs);
  EXPECT_TRUE(says(fs, "_PyObject_MakeTpCall (not in the stable ABI)")) << testing::dump(fs);
  EXPECT_TRUE(says(fs, "imports 2 Python C-API symbols")) << testing::dump(fs);
  EXPECT_FALSE(says(fs, "PyMyProj_Helper")) << testing::dump(fs);
  EXPECT_FALSE(says(fs, "PyLong_FromLong")) << testing::dump(fs);

  // From cp310 on, PyUnicode_AsUTF8AndSize is stable: only the private symbol remains.
  WheelBuilder later("ext", "1.0", "cp310-abi3-manylinux_2_28_x86_64");
  later.purelib(false).add("ext/_ext.abi3.so", so);
  fs = check(later);
  EXPECT_TRUE(says(fs, "imports 1 Python C-API symbol ")) << testing::dump(fs);
  EXPECT_FALSE(says(fs, "PyUnicode_AsUTF8AndSize")) << testing::dump(fs);

  // Not abi3-tagged: no audit at all.
  WheelBuilder plain("ext", "1.0", "cp312-cp312-manylinux_2_28_x86_64");
  plain.purelib(false).add("ext/_ext.cpython-312-x86_64-linux-gnu.so", so);
  EXPECT_FALSE(has_rule(check(plain), "WC511"));
}

TEST_F(Symbols, Abi3SymbolWaiversCarryTheirReason) {
  std::string so = extension("_ext", {"_PyObject_MakeTpCall", "PyFrame_GetBack"});
  WheelBuilder w("ext", "1.0", "cp310-abi3-manylinux_2_28_x86_64");
  w.purelib(false).add("ext/_ext.abi3.so", so);
  std::string policy = dir.file("waive.json");
  std::string text = R"({"extends": "default", "abi": {"waive_symbols": [
      {"symbol": "_PyObject_*", "reason": "vendored Cython fallback, guarded by a version check"}]}})";
  testing::write_file(policy, std::vector<uint8_t>(text.begin(), text.end()));
  Policy p = load_policy(policy);
  auto facts = testing::facts_of(w.build(), w.filename());
  auto v = check_wheel(facts, p);
  EXPECT_TRUE(says(v.findings, "PyFrame_GetBack (not in the stable ABI)")) << testing::dump(v.findings);
  EXPECT_FALSE(says(v.findings, "_PyObject_MakeTpCall")) << testing::dump(v.findings);
  ASSERT_EQ(v.waived.size(), 1u);
  EXPECT_EQ(v.waived[0].reason, "vendored Cython fallback, guarded by a version check");
  EXPECT_NE(v.waived[0].finding.message.find("_PyObject_MakeTpCall"), std::string::npos);
}

// PEP 803: abi3t needs 3.15; PyInit_ still finds the module (a cffi module that builds it without
// PyModuleDef is fine), but a PyModuleDef-based definition is unusable there, and a module with
// neither hook is found by no interpreter.
TEST_F(Symbols, Abi3tModulesExportTheirHook) {
  WheelBuilder cffi("ext", "1.0", "cp315-abi3.abi3t-manylinux_2_28_x86_64");
  cffi.purelib(false).add("ext/_ext.abi3t.so", extension("_ext", {"PyLong_FromLong", "PyModule_New"}));
  EXPECT_FALSE(has_rule(check(cffi), "WC511")) << testing::dump(check(cffi));
  WheelBuilder old("ext", "1.0", "cp315-abi3t-manylinux_2_28_x86_64");
  old.purelib(false).add("ext/_ext.abi3t.so", extension("_ext", {"PyLong_FromLong", "PyModuleDef_Init"}));
  auto fs = check(old);
  EXPECT_TRUE(says(fs,
                   "defines its module through PyModuleDef (imports PyModuleDef_Init), which the free-threaded "
                   "stable ABI makes opaque (PEP 803): export PyModExport__ext"))
      << testing::dump(fs);
  WheelBuilder none("ext", "1.0", "cp315-abi3t-manylinux_2_28_x86_64");
  none.purelib(false).add("ext/_ext.abi3t.so", extension("_ext", {"PyLong_FromLong"}, "", "Other_"));
  EXPECT_TRUE(says(check(none), "exports neither PyModExport__ext (PEP 793) nor PyInit__ext"))
      << testing::dump(check(none));
  WheelBuilder hooked("ext", "1.0", "cp315-abi3t-manylinux_2_28_x86_64");
  hooked.purelib(false).add("ext/_ext.abi3t.so", extension("_ext", {"PyLong_FromLong"}, "", "PyModExport_"));
  EXPECT_FALSE(has_rule(check(hooked), "WC511")) << testing::dump(check(hooked));
  WheelBuilder early("ext", "1.0", "cp312-abi3t-manylinux_2_28_x86_64");
  early.purelib(false).add("ext/_ext.abi3t.so", extension("_ext", {"PyLong_FromLong"}, "", "PyModExport_"));
  EXPECT_TRUE(says(check(early), "abi3t (PEP 803) exists from CPython 3.15")) << testing::dump(check(early));
}

// The mangled-name reader against c++filt: libraries built with each libstdc++ string ABI, counted
// per namespace by PyTorch's demangled patterns and by the reader.
TEST_F(Symbols, CxxAbiCountsAgreeWithCxxfilt) {
  const std::string src = R"(
#include <list>
#include <string>
#include <vector>
namespace c10 { struct Device { int i; };
  std::string name(const std::string& s) { return s + "x"; }
  std::list<int> ids(std::list<std::string> l) { return std::list<int>(l.size()); }
  struct Reg { void add(std::string k, int v); std::vector<std::string> keys() const; };
  void Reg::add(std::string k, int) { (void)k; }
  std::vector<std::string> Reg::keys() const { return {}; }
  template <typename T> T first(const std::vector<T>& v) { return v.front(); }
  template std::string first<std::string>(const std::vector<std::string>&);
}
namespace at { int size(const std::string& s, c10::Device) { return int(s.size()); }
  std::wstring wide(const std::wstring& w) { return w; } }
namespace other { int count(std::list<long> l) { return int(l.size()); } }
)";
  auto count_with_cxxfilt = [&](const std::string& lib, const std::string& ns, bool cxx11) {
    auto r = run_command("nm -D --defined-only " + shell_quote(dir.file(lib)) + " | c++filt");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    // PyTorch's patterns, with the namespace on either side of the type (the reader counts a symbol
    // for every namespace it names; PyTorch's regex wants the namespace first). Plain substring
    // tests: a namespace preceded by a non-identifier character, and one of the type spellings.
    const std::vector<std::string> types =
        cxx11 ? std::vector<std::string>{"std::__cxx11::basic_string", "std::__cxx11::list"}
              : std::vector<std::string>{"std::basic_string<", "std::list<", "std::string", "std::wstring"};
    auto names_ns = [&](std::string_view line) {
      const std::string want = ns + "::";
      for (size_t at = line.find(want); at != std::string_view::npos; at = line.find(want, at + 1)) {
        char before = at ? line[at - 1] : ' ';
        if (!(std::isalnum(static_cast<unsigned char>(before)) || before == '_' || before == ':')) return true;
      }
      return false;
    };
    int n = 0;
    for (std::string_view line : split(r.out, '\n'))
      if (names_ns(line) && std::any_of(types.begin(), types.end(),
                                        [&](const std::string& t) { return line.find(t) != std::string_view::npos; }))
        ++n;
    return n;
  };
  for (bool cxx11 : {true, false}) {
    std::string lib = cxx11 ? "libnew.so" : "libold.so";
    std::string image = build(lib, src, std::string("-D_GLIBCXX_USE_CXX11_ABI=") + (cxx11 ? "1" : "0"), "c++");
    BinaryFacts b;
    parse_binary_image(reinterpret_cast<const uint8_t*>(image.data()), image.size(), b);
    ASSERT_TRUE(b.cxx_abi_read);
    for (std::string ns : {"c10", "at"}) {
      int want = count_with_cxxfilt(lib, ns, cxx11);
      ASSERT_GT(want, 0) << lib << " " << ns;
      auto it = b.cxx_abi.find(ns);
      ASSERT_NE(it, b.cxx_abi.end()) << lib << " " << ns;
      // Defined symbols only for the comparison: the reader counts the whole string table, which
      // also names imports (std:: ones here, outside these namespaces).
      EXPECT_EQ(cxx11 ? it->second.cxx11 : it->second.pre_cxx11, uint64_t(want)) << lib << " " << ns;
      EXPECT_EQ(cxx11 ? it->second.pre_cxx11 : it->second.cxx11, 0u) << lib << " " << ns;
    }
  }
}

TEST(Mangled, TokensInsideIdentifiersAreNotTypes) {
  // "Ss" and "4list" inside identifiers, template parameters, literals and constructors.
  EXPECT_FALSE(classify_mangled("_ZN3c104Ssrc4listEv").pre_cxx11);
  EXPECT_FALSE(classify_mangled("_ZN3c108Klass4listEv").pre_cxx11);
  EXPECT_TRUE(classify_mangled("_ZN3c104nameERKSs").pre_cxx11);
  EXPECT_TRUE(classify_mangled("_ZN2at3fooESt4listIiSaIiEE").pre_cxx11);
  EXPECT_TRUE(classify_mangled("_ZN2at3fooENSt7__cxx114listIiSaIiEEE").cxx11);
  auto ctor = classify_mangled(
      "_ZN4c10d15DMAConnectivityC2EN3c1010DeviceTypeENSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE");
  EXPECT_TRUE(ctor.cxx11);
  ASSERT_EQ(ctor.namespaces.size(), 2u);
  EXPECT_EQ(ctor.namespaces[0], "c10d");
  EXPECT_EQ(ctor.namespaces[1], "c10");
  EXPECT_EQ(classify_mangled("_ZTSN5torch3jit5GraphE").namespaces.at(0), "torch");
  EXPECT_FALSE(classify_mangled("not_mangled_Ss").pre_cxx11);
  EXPECT_FALSE(classify_mangled("_ZN3c1099").cxx11);  // a length past the end: no crash, nothing found
}

TEST_F(Symbols, PytorchPolicyRunsTheCxx11Check) {
  const std::string src = R"(
#include <string>
namespace c10 { std::string name(const std::string& s) { return s + "x"; } }
namespace torch { std::string id(const std::string& s) { return s; } }
)";
  for (bool cxx11 : {true, false}) {
    std::string so = build(cxx11 ? "libtorch_cpu.so" : "libtorch_cpu_old.so", src,
                           std::string("-D_GLIBCXX_USE_CXX11_ABI=") + (cxx11 ? "1" : "0"), "c++");
    WheelBuilder w("torch", "2.15.0", "cp312-cp312-manylinux_2_28_x86_64");
    w.purelib(false).add("torch/lib/libtorch_cpu.so", so);
    auto fs = check(w, "pytorch");
    auto wc512 = [&] {
      std::vector<Finding> out;
      for (const auto& f : fs)
        if (f.rule == "WC512") out.push_back(f);
      return out;
    }();
    ASSERT_FALSE(wc512.empty()) << testing::dump(fs);
    if (cxx11) {  // right ABI, but two symbols are not the hundred PyTorch expects
      EXPECT_TRUE(says(wc512, "only 2 symbols in c10/at/torch/caffe2 use the C++11")) << testing::dump(wc512);
      EXPECT_FALSE(says(wc512, "pre-C++11 std::basic_string")) << testing::dump(wc512);
    } else {
      EXPECT_TRUE(says(wc512, "pre-C++11 std::basic_string/std::list symbols")) << testing::dump(wc512);
      EXPECT_TRUE(says(wc512, "c10 (1), torch (1)")) << testing::dump(wc512);
    }
    EXPECT_FALSE(has_rule(check(w, "default"), "WC512"));  // off unless a policy asks
  }
}

// Rewrites the DT_NEEDED entry naming `from` to name the string another DT_NEEDED entry uses: what a
// repair tool that renames needed libraries but not the version needs leaves behind.
void rename_needed(std::string& elf, const std::string& from, const std::string& to) {
  auto u16 = [&](size_t o) {
    uint16_t v;
    std::memcpy(&v, elf.data() + o, 2);
    return v;
  };
  auto u64 = [&](size_t o) {
    uint64_t v;
    std::memcpy(&v, elf.data() + o, 8);
    return v;
  };
  uint64_t phoff = u64(0x20);
  uint16_t phnum = u16(0x38), phentsize = u16(0x36);
  uint64_t dyn = 0, dynsz = 0;
  std::vector<std::pair<uint64_t, uint64_t>> loads;  // (vaddr, offset)
  for (uint16_t i = 0; i < phnum; ++i) {
    size_t ph = phoff + size_t(i) * phentsize;
    uint32_t type;
    std::memcpy(&type, elf.data() + ph, 4);
    if (type == 2) dyn = u64(ph + 8), dynsz = u64(ph + 32);
    if (type == 1) loads.emplace_back(u64(ph + 16), u64(ph + 8));
  }
  ASSERT_NE(dyn, 0u);
  uint64_t strtab = 0;
  for (size_t o = dyn; o < dyn + dynsz; o += 16)
    if (u64(o) == 5) strtab = u64(o + 8);
  for (auto [va, off] : loads)
    if (strtab >= va && strtab - va < (1u << 24)) {
      strtab = strtab - va + off;
      break;
    }
  uint64_t to_val = UINT64_MAX;
  size_t from_at = 0;
  for (size_t o = dyn; o < dyn + dynsz; o += 16)
    if (u64(o) == 1) {
      std::string name(elf.c_str() + strtab + u64(o + 8));
      if (name == to) to_val = u64(o + 8);
      if (name == from) from_at = o + 8;
    }
  ASSERT_NE(to_val, UINT64_MAX);
  ASSERT_NE(from_at, 0u);
  std::memcpy(elf.data() + from_at, &to_val, 8);
}

TEST_F(Symbols, VersionNeedsNameANeededLibrary) {
  std::string map = dir.file("dep.map");
  std::string script = "DEP_1.0 { global: dep_f; local: *; };";
  testing::write_file(map, std::vector<uint8_t>(script.begin(), script.end()));
  build("libdep.so.1", "int dep_f(void){return 1;}", "-Wl,-soname,libdep.so.1 -Wl,--version-script=" + map);
  std::string user = build("libuser.so", "int dep_f(void); int u(void){return dep_f();}",
                           "-Wl,--no-as-needed " + shell_quote(dir.file("libdep.so.1")));
  WheelBuilder good("app", "1.0", "cp312-cp312-manylinux_2_28_x86_64");
  good.purelib(false).add("app/libuser.so", user).add("app/libdep.so.1", dep_text());
  EXPECT_FALSE(has_rule(check(good), "WC513")) << testing::dump(check(good));

  rename_needed(user, "libdep.so.1", "libc.so.6");
  testing::write_file(dir.file("broken.so"), std::vector<uint8_t>(user.begin(), user.end()));
  // readelf agrees: the version needs still name libdep.so.1, the dynamic section no longer does.
  auto v = run_command("readelf -V " + shell_quote(dir.file("broken.so")));
  auto d = run_command("readelf -d " + shell_quote(dir.file("broken.so")));
  EXPECT_NE(v.out.find("File: libdep.so.1"), std::string::npos) << v.out;
  EXPECT_EQ(d.out.find("[libdep.so.1]"), std::string::npos) << d.out;
  WheelBuilder bad("app", "1.0", "cp312-cp312-manylinux_2_28_x86_64");
  bad.purelib(false).add("app/libuser.so", user).add("app/libdep.so.1", dep_text());
  auto fs = check(bad);
  EXPECT_TRUE(says(fs, "WC513 [error]")) << testing::dump(fs);
  EXPECT_TRUE(says(fs, "(DEP_1.0) are needed from libdep.so.1, which no DT_NEEDED entry names")) << testing::dump(fs);
}

TEST(UploadRules, EntryPointsAsPypiReadsThem) {
  auto run = [](const std::string& text) {
    WheelBuilder w("app", "1.0");
    w.add("app/__init__.py", "").add("app-1.0.dist-info/entry_points.txt", text);
    return testing::findings_of(w.build(), w.filename());
  };
  auto good =
      run("[console_scripts]\napp = app.cli:main\napp-extra = app.cli:extra [fast]\n\n# note\n"
          "[app.plugins]\nx.y = app.plugins\n");
  EXPECT_FALSE(has_rule(good, "WC208")) << testing::dump(good);
  auto bad_name = run("[console_scripts]\nmy app = app.cli:main\n");
  EXPECT_TRUE(says(bad_name, "script name 'my app' in [console_scripts] is outside")) << testing::dump(bad_name);
  auto no_eq = run("[console_scripts]\napp app.cli:main\n");
  EXPECT_TRUE(says(no_eq, "line 2: 'app app.cli:main' is not a 'name = object' line")) << testing::dump(no_eq);
  auto twice = run("[console_scripts]\napp = app.cli:main\napp = app.cli:other\n");
  EXPECT_TRUE(says(twice, "'app' is defined twice")) << testing::dump(twice);
  auto not_ref = run("[console_scripts]\napp = app.cli:main()\n");
  EXPECT_TRUE(says(not_ref, "is not an object reference")) << testing::dump(not_ref);
  auto latin1 = run("[console_scripts]\ncaf\xe9 = app.cli:main\n");
  EXPECT_TRUE(says(latin1, "entry_points.txt is not UTF-8")) << testing::dump(latin1);
  auto outside = run("app = app.cli:main\n");
  EXPECT_TRUE(says(outside, "entry before any [section]")) << testing::dump(outside);
}

TEST(UploadRules, PthImportsSignaturesAndMetadataVersion) {
  WheelBuilder w("app", "1.0");
  w.add("app/__init__.py", "")
      .add("app-hook.pth", "# comment\n/opt/extra\nimport app._hook; app._hook.install()\n")
      .add("paths.pth", "extra_dir\n")
      .add("app-1.0.dist-info/RECORD.jws", "{}");
  auto fs = testing::findings_of(w.build(), w.filename());
  EXPECT_TRUE(says(fs, "WC209 [warning] app-hook.pth: 1 'import' line (first at line 3)")) << testing::dump(fs);
  EXPECT_FALSE(says(fs, "paths.pth")) << testing::dump(fs);
  EXPECT_TRUE(says(fs, "WC210 [warning] app-1.0.dist-info/RECORD.jws")) << testing::dump(fs);

  WheelBuilder v26("app", "1.0");
  v26.add("app/__init__.py", "").metadata("Metadata-Version: 2.6\nName: app\nVersion: 1.0\n");
  auto m = testing::findings_of(v26.build(), v26.filename());
  EXPECT_TRUE(says(m, "Metadata-Version 2.6 (PEP 808) is valid, but PyPI does not accept it yet")) << testing::dump(m);
  EXPECT_FALSE(has_errors(m)) << testing::dump(m);
  WheelBuilder v25("app", "1.0");
  v25.add("app/__init__.py", "").metadata("Metadata-Version: 2.5\nName: app\nVersion: 1.0\n");
  EXPECT_FALSE(has_rule(testing::findings_of(v25.build(), v25.filename()), "WC202"));
}

// A wheel whose first entry's name carries, at offset 148, the octal checksum of its first 512
// bytes: a valid tar header to Python's tarfile, and WC404 here.
TEST(UploadRules, ZipThatIsAlsoATar) {
  // The name starts at offset 30: tar's numeric fields (mode, uid, gid, size, mtime at 100..147) hold
  // octal zeros, the checksum field (148..155) eight placeholder digits, the type flag (156) '0'.
  std::string name =
      "app/" + std::string(66, 'a') + std::string(48, '0') + "00000000" + "0" + std::string(60, 'b') + ".txt";
  WheelBuilder w("app", "1.0");
  w.add(name, std::string(600, '0'), /*store=*/true).add("app/__init__.py", "");  // device numbers at 329..344
  std::vector<uint8_t> zip = w.build();
  ASSERT_EQ(std::string(zip.begin() + 30, zip.begin() + 30 + name.size()), name);  // the first entry
  uint64_t sum = 0;
  for (size_t i = 0; i < 512; ++i) sum += (i >= 148 && i < 156) ? ' ' : zip[i];
  char digits[9];
  std::snprintf(digits, sizeof digits, "%08llo", static_cast<unsigned long long>(sum));
  std::string patched = name;
  patched.replace(118, 8, digits);
  std::string bytes(zip.begin(), zip.end());
  for (size_t at = 0; (at = bytes.find(name, at)) != std::string::npos; at += name.size())
    bytes.replace(at, name.size(), patched);  // local header, RECORD row and central directory
  testing::TempDir dir;
  testing::write_file(dir.file("app-1.0-py3-none-any.whl"), std::vector<uint8_t>(bytes.begin(), bytes.end()));
  testing::write_file(dir.file("plain-1.0-py3-none-any.whl"), zip);
  auto py = run_command(
      "python3 -c 'import sys, tarfile; print(tarfile.is_tarfile(sys.argv[1]), "
      "tarfile.is_tarfile(sys.argv[2]))' " +
      shell_quote(dir.file("app-1.0-py3-none-any.whl")) + " " + shell_quote(dir.file("plain-1.0-py3-none-any.whl")));
  ASSERT_EQ(py.exit_code, 0) << py.err;
  EXPECT_EQ(py.out, "True False\n");  // Python agrees: one is a tar, the other is not
  auto fs = testing::findings_of(std::vector<uint8_t>(bytes.begin(), bytes.end()), "app-1.0-py3-none-any.whl");
  EXPECT_TRUE(says(fs, "the file is also a tar archive")) << testing::dump(fs);
  EXPECT_FALSE(says(testing::findings_of(zip, "app-1.0-py3-none-any.whl"), "tar archive"));
}

}  // namespace
}  // namespace wc

namespace wc {
namespace {

// The shipped stable-ABI table is what tools/gen_stable_abi.py makes of its source (the abi3info
// wheel from PyPI, pinned by hash; skipped when PyPI cannot be reached), and the check notices a
// table that drifted.
TEST(StableAbiTable, MatchesItsGenerator) {
  const char* home = std::getenv("HOME");
  std::string cache = std::string(home ? home : "/tmp") + "/.cache/wheelcheck-tests/real";
  std::string src = WC_SOURCE_DIR;
  auto fetch = run_command("python3 " + shell_quote(src + "/tools/fetch_wheels.py") + " " + shell_quote(cache) +
                           " abi3info abi3info-2026.9.25-py3-none-any.whl "
                           "d5cbf46f358a4e0cafa171572adb67e5dce14a1b316e3c9f577234dbafcd5214");
  if (fetch.exit_code == 3) GTEST_SKIP() << "PyPI not reachable: " << fetch.err;
  ASSERT_EQ(fetch.exit_code, 0) << fetch.err;
  std::string wheel = cache + "/abi3info-2026.9.25-py3-none-any.whl";
  std::string gen = "python3 " + shell_quote(src + "/tools/gen_stable_abi.py") + " --abi3info " + shell_quote(wheel);
  auto ok = run_command(gen + " --check " + shell_quote(src + "/policies/stable_abi.json"));
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  EXPECT_NE(ok.out.find("agrees with abi3info 2026.9.25"), std::string::npos) << ok.out;

  testing::TempDir dir;
  auto text = testing::read_file(src + "/policies/stable_abi.json");
  std::string t(text.begin(), text.end());
  auto at = t.find("\"PyBuffer_Release\": \"3.11\"");
  ASSERT_NE(at, std::string::npos);
  t.replace(at, std::strlen("\"PyBuffer_Release\": \"3.11\""), "\"PyBuffer_Release\": \"3.2\"");
  testing::write_file(dir.file("drifted.json"), std::vector<uint8_t>(t.begin(), t.end()));
  auto drift = run_command(gen + " --check " + shell_quote(dir.file("drifted.json")));
  EXPECT_EQ(drift.exit_code, 1);
  EXPECT_NE(drift.err.find("symbols PyBuffer_Release: the source says 3.11"), std::string::npos) << drift.err;
}

}  // namespace
}  // namespace wc

namespace wc {
namespace {

// Mach-O and PE imports, read from builders that lay the tables out as ld64 and link.exe do.
TEST(Abi3Imports, MachOUndefinedExternalsOfEverySlice) {
  auto x86 = testing::macho_thin_with_symbols(0x01000007, {"PyLong_FromLong", "PyObject_GetBuffer"}, "PyInit__ext");
  auto arm = testing::macho_thin_with_symbols(0x0100000c, {"PyLong_FromLong", "_Py_Dealloc"}, "PyInit__ext");
  auto fat = testing::macho_fat({{0x01000007, x86}, {0x0100000c, arm}});
  BinaryFacts b;
  parse_binary_image(fat.data(), fat.size(), b);
  ASSERT_TRUE(b.errors.empty()) << b.errors.front();
  EXPECT_TRUE(b.undefined_symbols_read);
  EXPECT_EQ(b.undefined_symbols, (std::vector<std::string>{"PyLong_FromLong", "PyObject_GetBuffer", "_Py_Dealloc"}));

  WheelBuilder w("ext", "1.0", "cp38-abi3-macosx_11_0_universal2");
  w.purelib(false).add("ext/_ext.abi3.so", std::string(fat.begin(), fat.end()));
  auto fs = testing::findings_of(w.build(), w.filename());
  EXPECT_TRUE(says(fs,
                   "ext/_ext.abi3.so: imports 1 Python C-API symbol that the stable ABI of cp38 does not offer: "
                   "PyObject_GetBuffer (stable from 3.11)"))
      << testing::dump(fs);
  // A thin binary: the capture plan keeps the symbol and string tables as they stream past.
  WheelBuilder thin("ext", "1.0", "cp38-abi3-macosx_11_0_x86_64");
  thin.purelib(false).add("ext/_ext.abi3.so", std::string(x86.begin(), x86.end()) + std::string(2u << 20, '\0'));
  EXPECT_TRUE(says(testing::findings_of(thin.build(), thin.filename()), "PyObject_GetBuffer (stable from 3.11)"));
}

TEST(Abi3Imports, WindowsImportsComeFromPython3Dll) {
  auto good = testing::pe_image_importing(
      0x8664, {{"python3.dll", {"PyLong_FromLong", "PyModule_Create2"}}, {"KERNEL32.dll", {"GetLastError"}}}, true);
  BinaryFacts b;
  parse_binary_image(good.data(), good.size(), b);
  ASSERT_TRUE(b.errors.empty()) << b.errors.front();
  EXPECT_EQ(b.python_dll_imports.at("python3.dll"), (std::vector<std::string>{"PyLong_FromLong", "PyModule_Create2"}));
  EXPECT_EQ(b.python_dll_imports.count("KERNEL32.dll"), 0u);  // only the interpreter's DLL is kept

  WheelBuilder ok("ext", "1.0", "cp38-abi3-win_amd64");
  ok.purelib(false).add("ext/_ext.pyd", std::string(good.begin(), good.end()));
  EXPECT_FALSE(has_rule(testing::findings_of(ok.build(), ok.filename()), "WC511"));

  auto versioned = testing::pe_image_importing(0x8664, {{"python312.dll", {"PyLong_FromLong", "_PyObject_GC_New"}}});
  WheelBuilder bad("ext", "1.0", "cp38-abi3-win_amd64");
  bad.purelib(false).add("ext/_ext.pyd", std::string(versioned.begin(), versioned.end()));
  auto fs = testing::findings_of(bad.build(), bad.filename());
  EXPECT_TRUE(says(fs, "imports 2 symbols from python312.dll, one CPython version's DLL")) << testing::dump(fs);
}

}  // namespace
}  // namespace wc
