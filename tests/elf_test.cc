// ELF facts from objects gcc builds at test time, each cross-checked against readelf on the same
// file, both through the whole-image parser and through a wheel (the streaming collector, which
// fetches out-of-window tables in a second read).
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "binary/binary_facts.h"
#include "policy/policy.h"
#include "support/fixtures.h"
#include "support/test_support.h"
#include "wheel_builder.h"

namespace wc {
namespace {

using namespace wc::testing;

using testing::run_command;
using testing::shell_quote;

struct ReadelfFacts {
  std::vector<std::string> needed, rpath, runpath;
  std::string soname, interp, cls, data, machine;
  std::map<std::string, std::vector<std::string>> verneed;
  bool exec_stack = false;
  std::optional<unsigned> isa;
};

ReadelfFacts readelf(const std::string& path) {
  ReadelfFacts r;
  auto d = run_command("readelf -dW " + shell_quote(path)).out;
  std::smatch m;
  static const std::regex dyn(R"(\((NEEDED|SONAME|RPATH|RUNPATH)\)\s+[^\[]*\[([^\]]*)\])");
  for (auto it = std::sregex_iterator(d.begin(), d.end(), dyn); it != std::sregex_iterator(); ++it) {
    std::string tag = (*it)[1], val = (*it)[2];
    if (tag == "NEEDED")
      r.needed.push_back(val);
    else if (tag == "SONAME")
      r.soname = val;
    else {
      auto& dst = tag == "RPATH" ? r.rpath : r.runpath;
      std::stringstream ss(val);
      for (std::string p; std::getline(ss, p, ':');) dst.push_back(p);
    }
  }
  auto v = run_command("readelf -VW " + shell_quote(path)).out;
  std::string file;
  std::stringstream vs(v);
  bool in_r = false;
  for (std::string line; std::getline(vs, line);) {
    if (line.find(".gnu.version_r") != std::string::npos)
      in_r = true;
    else if (line.find("section '") != std::string::npos)
      in_r = false;
    if (!in_r) continue;
    if (std::regex_search(line, m, std::regex(R"(File: (\S+))")))
      file = m[1];
    else if (std::regex_search(line, m, std::regex(R"(Name: (\S+))")))
      r.verneed[file].push_back(m[1]);
  }
  auto l = run_command("readelf -lW " + shell_quote(path)).out;
  if (std::regex_search(l, m, std::regex(R"(interpreter: ([^\]]+)\])"))) r.interp = m[1];
  if (std::regex_search(l, m, std::regex(R"(GNU_STACK\s+(?:\S+\s+){5}(\S+))")))
    r.exec_stack = m[1].str().find('E') != std::string::npos;
  auto h = run_command("readelf -hW " + shell_quote(path)).out;
  if (std::regex_search(h, m, std::regex(R"(Class:\s+(\S+))"))) r.cls = m[1];
  if (std::regex_search(h, m, std::regex(R"(Data:\s+[^,]+, (\S+) endian)"))) r.data = m[1];
  auto n = run_command("readelf -nW " + shell_quote(path)).out;
  if (std::regex_search(n, m, std::regex(R"(x86 ISA needed: ([^\n]*))"))) {
    std::string s = m[1];
    r.isa = s.find("v4") != std::string::npos   ? 4
            : s.find("v3") != std::string::npos ? 3
            : s.find("v2") != std::string::npos ? 2
                                                : 1;
  }
  return r;
}

void expect_matches_readelf(const BinaryFacts& b, const std::string& path) {
  ReadelfFacts r = readelf(path);
  EXPECT_TRUE(b.errors.empty()) << b.errors.front();
  EXPECT_EQ(b.needed, r.needed) << path;
  EXPECT_EQ(b.soname, r.soname) << path;
  EXPECT_EQ(b.rpath, r.rpath) << path;
  EXPECT_EQ(b.runpath, r.runpath) << path;
  EXPECT_EQ(b.interpreter, r.interp) << path;
  EXPECT_EQ(b.exec_stack, r.exec_stack) << path;
  EXPECT_EQ(b.x86_isa_level, r.isa) << path;
  EXPECT_EQ(b.elf_class == 64 ? "ELF64" : "ELF32", r.cls) << path;
  EXPECT_EQ(b.endian, r.data) << path;
  std::map<std::string, std::vector<std::string>> mine = b.version_needs;
  for (auto& [k, vs] : mine) std::sort(vs.begin(), vs.end());
  for (auto& [k, vs] : r.verneed) std::sort(vs.begin(), vs.end());
  EXPECT_EQ(mine, r.verneed) << path;
}

class ElfFixture : public ::testing::Test {
 protected:
  testing::TempDir dir;
  std::string compile(const std::string& name, const std::string& src, const std::string& flags,
                      const char* lang = "c") {
    std::string s = dir.file(name + (std::string(lang) == "c" ? ".c" : ".cc"));
    testing::write_file(s, std::vector<uint8_t>(src.begin(), src.end()));
    std::string out = dir.file(name);
    auto r = run_command(std::string(std::string(lang) == "c" ? "gcc" : "g++") + " -O1 " + flags + " " +
                         shell_quote(s) + " -o " + shell_quote(out) + " -L" + shell_quote(dir.path()));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return out;
  }
  BinaryFacts image_facts(const std::string& path) {
    auto bytes = testing::read_file(path);
    BinaryFacts b;
    b.path = path;
    parse_binary_image(bytes.data(), bytes.size(), b);
    return b;
  }
  BinaryFacts wheel_facts(const std::string& path, const std::string& entry = "pkg/lib.so") {
    auto bytes = testing::read_file(path);
    auto z = testing::WheelBuilder("pkg", "1.0", "cp312-cp312-manylinux_2_17_x86_64")
                 .purelib(false)
                 .add(entry, std::string(bytes.begin(), bytes.end()))
                 .build();
    auto f = testing::facts_of(z, "pkg-1.0-cp312-cp312-manylinux_2_17_x86_64.whl");
    EXPECT_EQ(f.binaries.size(), 1u);
    return f.binaries.empty() ? BinaryFacts{} : f.binaries[0];
  }
};

TEST_F(ElfFixture, VersionedGlibcSymbolsAndStubSonames) {
  compile("libstub.so", "int stub_fn(void){return 3;}", "-shared -fPIC -Wl,-soname,libstub.so.7");
  std::string lib = compile("libmix.so",
                            "#include <string.h>\n#include <stdlib.h>\n#include <sys/random.h>\nint stub_fn(void);\n"
                            "int f(char* a, const char* b, unsigned n){ void* p = reallocarray(0, n, 2); free(p);"
                            " getrandom(a, n, 0); memcpy(a, b, n); return stub_fn(); }",
                            "-shared -fPIC -Wl,-soname,libmix.so.1 -Wl,--no-as-needed -lstub "
                            "-Wl,-rpath,'$ORIGIN/../stubs:/opt/abs' -Wl,--disable-new-dtags");
  BinaryFacts b = image_facts(lib);
  expect_matches_readelf(b, lib);
  EXPECT_EQ(b.max_symbol_versions()["GLIBC"], "2.26");  // reallocarray
  EXPECT_EQ(b.libc, "glibc");
  EXPECT_EQ(b.arch, "x86_64");
  expect_matches_readelf(wheel_facts(lib), lib);
}

TEST_F(ElfFixture, CxxRunpathAndIsaLevel) {
  std::string lib =
      compile("libcxx.so",
              "#include <string>\n#include <stdexcept>\nstd::string g(int n){ if(n<0) throw std::runtime_error(\"x\"); "
              "return std::to_string(n); }",
              "-shared -fPIC -march=x86-64-v3 -mneeded -Wl,-rpath,'$ORIGIN' -Wl,--enable-new-dtags", "cc");
  BinaryFacts b = image_facts(lib);
  expect_matches_readelf(b, lib);
  EXPECT_TRUE(b.max_symbol_versions().count("GLIBCXX"));
  EXPECT_TRUE(b.max_symbol_versions().count("CXXABI"));
  EXPECT_EQ(b.x86_isa_level, 3u);
}

TEST_F(ElfFixture, ExecutableWithInterpreterAndExecStack) {
  std::string exe = compile("prog", "int main(void){return 0;}", "-Wl,-z,execstack");
  BinaryFacts b = image_facts(exe);
  expect_matches_readelf(b, exe);
  EXPECT_TRUE(b.exec_stack);
  EXPECT_FALSE(b.interpreter.empty());
}

// Tables beyond both capture windows: .dynamic sits between 4 MiB of .rodata and 3 MiB of .data,
// so the collector must fetch it (and the strings it points at) in a second read.
TEST_F(ElfFixture, LargeLibraryNeedsSecondRead) {
  // Incompressible filler, so the wheel's compression-ratio guard does not (rightly) skip it.
  std::vector<uint8_t> noise(4u << 20);
  uint64_t x = 88172645463325252ull;
  for (auto& b : noise) b = static_cast<uint8_t>((x ^= x << 13, x ^= x >> 7, x ^= x << 17) >> 32);
  testing::write_file(dir.file("noise.bin"), noise);
  std::string lib =
      compile("libbig.so",
              "#include <math.h>\n__asm__(\".section .rodata\\n.globl ro\\nro: .incbin \\\"" + dir.file("noise.bin") +
                  "\\\"\\n.data\\n.globl rw\\nrw: .incbin \\\"" + dir.file("noise.bin") +
                  "\\\", 0, 3145728\\n.text\");\nextern const char ro[]; extern char rw[];\n"
                  "double h(double x){ return sin(x) + ro[5] + rw[7]; }",
              "-shared -fPIC -Wl,-soname,libbig.so -Wl,--no-as-needed -lm");
  // The layout this test relies on: .dynamic outside the first and the last MiB.
  std::smatch m;
  std::string sections = run_command("readelf -SW " + shell_quote(lib)).out;
  ASSERT_TRUE(std::regex_search(sections, m, std::regex(R"(\.dynamic\s+DYNAMIC\s+\S+\s+(\S+))")));
  uint64_t dyn_off = std::stoull(m[1], nullptr, 16), size = testing::read_file(lib).size();
  ASSERT_GT(dyn_off, 1u << 20);
  ASSERT_LT(dyn_off, size - (1u << 20));
  BinaryFacts b = wheel_facts(lib);
  expect_matches_readelf(b, lib);
  EXPECT_NE(std::find(b.needed.begin(), b.needed.end(), "libm.so.6"), b.needed.end());
}

TEST_F(ElfFixture, ThirtyTwoBitAndBigEndianAgainstReadelf) {
  struct Case {
    bool is64, big;
    uint16_t machine;
    const char* arch;
  };
  for (auto c : {Case{false, false, 3, "i686"}, Case{false, true, 20, "ppc"}, Case{true, true, 22, "s390x"},
                 Case{true, false, 183, "aarch64"}}) {
    auto img = tiny_elf(c.is64, c.big, c.machine);
    std::string path = dir.file(std::string("tiny-") + c.arch + ".so");
    testing::write_file(path, img);
    BinaryFacts b = image_facts(path);
    expect_matches_readelf(b, path);
    EXPECT_EQ(b.arch, c.arch);
    EXPECT_EQ(b.elf_class, c.is64 ? 64 : 32);
    EXPECT_EQ(b.needed, (std::vector<std::string>{"libc.so.6", "libfoo.so.1"}));
    EXPECT_EQ(b.max_symbol_versions()["GLIBC"], "2.4");
  }
}

TEST_F(ElfFixture, RulesOnRealBinaries) {
  std::string lib =
      compile("libnew.so", "#include <sys/random.h>\nint f(char*a){return getrandom(a,4,0);}", "-shared -fPIC");
  auto bytes = testing::read_file(lib);
  std::string so(bytes.begin(), bytes.end());
  auto check = [&](const std::string& tag, const std::string& entry = "pkg/_c.so") {
    testing::WheelBuilder b("pkg", "1.0", tag);
    b.purelib(false).add(entry, so);
    return testing::findings_of(b.build(), b.filename());
  };
  auto old = check("cp312-cp312-manylinux_2_17_x86_64");
  ASSERT_TRUE(testing::has_rule(old, "WC502")) << testing::dump(old);
  EXPECT_NE(testing::dump(old).find("GLIBC_2.25"), std::string::npos);
  EXPECT_FALSE(testing::has_rule(check("cp312-cp312-manylinux_2_28_x86_64"), "WC502"));
  EXPECT_TRUE(testing::has_rule(check("cp312-cp312-manylinux_2_28_aarch64"), "WC501"));
  EXPECT_TRUE(testing::has_rule(check("cp312-cp312-musllinux_1_2_x86_64"), "WC505"));
  EXPECT_TRUE(testing::has_rule(check("cp312-cp312-win_amd64"), "WC501"));
}

TEST_F(ElfFixture, NeededResolutionAcrossAnInstallSet) {
  compile("libdep.so.9", "int dep(void){return 1;}", "-shared -fPIC -Wl,-soname,libdep.so.9");
  run_command("ln -sf libdep.so.9 " + shell_quote(dir.file("libdep.so")));
  std::string main_lib = compile("libmain.so", "int dep(void); int m(void){return dep();}",
                                 "-shared -fPIC -Wl,--no-as-needed -ldep -Wl,-rpath,'$ORIGIN/../../nvidia/dep/lib'");
  auto so = testing::read_file(main_lib), dep = testing::read_file(dir.file("libdep.so.9"));
  testing::WheelBuilder torch("torchlike", "1.0", "cp312-cp312-manylinux_2_28_x86_64");
  torch.purelib(false).add("torchlike/lib/libmain.so", std::string(so.begin(), so.end()));
  testing::WheelBuilder nv("nvidia-dep-cu12", "9.0", "py3-none-manylinux_2_28_x86_64");
  nv.purelib(false).add("nvidia/dep/lib/libdep.so.9", std::string(dep.begin(), dep.end()));
  auto tf = testing::facts_of(torch.build(), torch.filename());
  auto nf = testing::facts_of(nv.build(), nv.filename());
  Policy p = load_policy("default");
  auto alone = check_wheel(tf, p).findings;
  ASSERT_TRUE(testing::has_rule(alone, "WC503")) << testing::dump(alone);
  EXPECT_NE(testing::dump(alone).find("libdep.so.9"), std::string::npos);
  InstallSet set;
  set.wheels = {&tf, &nf};
  auto together = check_wheel(tf, p, set).findings;
  EXPECT_FALSE(testing::has_rule(together, "WC503")) << testing::dump(together);
  EXPECT_FALSE(testing::has_rule(together, "WC504")) << testing::dump(together);
}

TEST_F(ElfFixture, RpathOutsideTheInstallTree) {
  std::string lib = compile("libesc.so", "int f(void){return 0;}",
                            "-shared -fPIC -Wl,-rpath,'$ORIGIN/../../../../../usr/lib:/opt/cuda/lib64'");
  auto so = testing::read_file(lib);
  testing::WheelBuilder b("pkg", "1.0", "cp312-cp312-manylinux_2_28_x86_64");
  b.purelib(false).add("pkg/lib.so", std::string(so.begin(), so.end()));
  auto fs = testing::findings_of(b.build(), b.filename());
  std::string d = testing::dump(fs);
  // One finding for the binary, listing both entries; a warning, since nothing it needs is missing.
  ASSERT_EQ(std::count_if(fs.begin(), fs.end(), [](const Finding& f) { return f.rule == "WC504"; }), 1) << d;
  EXPECT_NE(d.find("WC504 [warning] pkg/lib.so: dead RPATH/RUNPATH entries outside the install tree: "
                   "$ORIGIN/../../../../../usr/lib "
                   "(outside site-packages), /opt/cuda/lib64 (absolute)"),
            std::string::npos)
      << d;
  // The same entries on a binary that misses a library: an error, and WC503 shows the path as written.
  std::string needy =
      compile("libneedy.so", "int g(void);int f(void){return g();}",
              "-shared -fPIC -Wl,--no-as-needed -L" + dir.path() +
                  " -Wl,-rpath,'$ORIGIN/../../../../../usr/lib:/opt/cuda/lib64' " +
                  compile("libgone.so", "int g(void){return 1;}", "-shared -fPIC -Wl,-soname,libgone.so.1"));
  auto so2 = testing::read_file(needy);
  testing::WheelBuilder b2("pkg", "1.0", "cp312-cp312-manylinux_2_28_x86_64");
  b2.purelib(false).add("pkg/_ext.cpython-312-x86_64-linux-gnu.so", std::string(so2.begin(), so2.end()));
  auto fs2 = testing::findings_of(b2.build(), b2.filename());
  std::string d2 = testing::dump(fs2);
  EXPECT_NE(
      d2.find("WC504 [error] pkg/_ext.cpython-312-x86_64-linux-gnu.so: RPATH/RUNPATH entries outside the install tree: "
              "$ORIGIN/../../../../../usr/lib (outside site-packages), /opt/cuda/lib64 (absolute); the loader searches "
              "them for libgone.so.1 (which the run does not provide)"),
      std::string::npos)
      << d2;
  EXPECT_NE(
      d2.find(
          "WC503 [error] pkg/_ext.cpython-312-x86_64-linux-gnu.so: needs libgone.so.1, which is not found: searched "
          "$ORIGIN/../../../../../usr/lib (outside site-packages), /opt/cuda/lib64 (absolute)"),
      std::string::npos)
      << d2;
}

// A section name table lying past the end of the file: each section name it is asked for is a
// warning (the loader never reads it), and no .nv_fatbin is made up. Built by GCC 12 at -O2, the
// lookup assigned straight into the layout came back with stack bytes (a .nv_fatbin "at offset
// 94365531074929", another on every run); Golden.HostileCorpusFindings found it as a finding that
// changed from one run to the next. The file is a fuzzer's, from fuzz/corpus/elf.
TEST(ElfReader, ASectionNameTablePastTheEndFindsNoSection) {
  auto bytes = read_file(std::string(WC_SOURCE_DIR) + "/fuzz/corpus/elf/11eeec7973e07dc08432adda7057ee7529a09cad");
  ASSERT_EQ(bytes.size(), 573u);
  // As a wheel's extension module: read as it streams past (the capture path), and from the image.
  auto wheel = WheelBuilder("elfx", "1.0", "cp312-cp312-manylinux_2_17_x86_64")
                   .purelib(false)
                   .add("elfx/_ext.cpython-312-x86_64-linux-gnu.so", std::string(bytes.begin(), bytes.end()))
                   .build();
  for (int run = 0; run < 3; ++run) {
    BinaryFacts image;
    parse_elf_image(bytes.data(), bytes.size(), image);
    WheelFacts f = facts_of(wheel, "elfx-1.0-cp312-cp312-manylinux_2_17_x86_64.whl");
    ASSERT_EQ(f.binaries.size(), 1u);
    for (const BinaryFacts* b : {&image, &f.binaries[0]}) {
      for (const auto& e : b->errors) EXPECT_EQ(e.find(".nv_fatbin"), std::string::npos) << e;
      size_t name_table = 0;
      for (const auto& w : b->warnings)
        name_table += w.find("section name table at file offset 553648128: range [553648128, ") == 0;
      EXPECT_EQ(name_table, 2u) << "one for .nv_fatbin, one for .hip_fatbin";
    }
  }
}

}  // namespace
}  // namespace wc
