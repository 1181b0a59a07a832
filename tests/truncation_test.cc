// Truncation and mutation as properties, not counts: for every prefix of a binary, the reader
// either reports an error or returns exactly what the whole file gives (a prefix that cuts a
// structure the facts depend on must never yield a silent partial result). For random byte flips
// in a wheel, each mutant either fails with an error finding or yields the same contents as the
// original (a flip the format does not protect, e.g. in a timestamp, changes nothing we report).
#include <gtest/gtest.h>

#include <sstream>

#include "binary/binary_facts.h"
#include "support/fixtures.h"
#include "support/test_support.h"
#include "wheel_builder.h"

namespace wc {
namespace {

using testing::run_command;
using testing::shell_quote;

// Everything a rule can see of a binary, as one comparable string.
std::string summary(const BinaryFacts& b) {
  std::ostringstream o;
  o << b.format << "|" << b.arch << "|" << b.soname << "|" << b.interpreter << "|" << b.exec_stack << "|"
    << (b.x86_isa_level ? static_cast<int>(*b.x86_isa_level) : -1) << "|" << b.libc << "|";
  for (const auto* v : {&b.needed, &b.rpath, &b.runpath, &b.version_defs, &b.dlls})
    for (const auto& s : *v) o << s << ",";
  for (const auto& [lib, vs] : b.version_needs) {
    o << lib << ":";
    for (const auto& v : vs) o << v << ",";
  }
  for (const auto& s : b.slices) {
    o << s.arch << "/" << s.minos << "/";
    for (const auto& d : s.dylibs) o << d << ",";
    for (const auto& r : s.rpaths) o << r << ",";
  }
  o << "|" << b.fatbin.containers << ":";
  for (const auto& e : b.fatbin.entries) o << e.name() << "@" << e.offset << ",";
  return o.str();
}

// Every prefix: an error, or the full result. Returns how many prefixes reported an error.
size_t expect_prefix_property(const std::vector<uint8_t>& img, const std::string& what) {
  BinaryFacts full;
  parse_binary_image(img.data(), img.size(), full);
  EXPECT_TRUE(full.errors.empty()) << what << ": the whole image must parse: " << full.errors.front();
  const std::string want = summary(full);
  size_t errors = 0;
  for (size_t n = 0; n < img.size(); ++n) {
    BinaryFacts b;
    parse_binary_image(img.data(), n, b);
    if (!b.errors.empty()) {
      ++errors;
      continue;
    }
    EXPECT_EQ(summary(b), want) << what << ": the " << n << "-byte prefix of " << img.size()
                                << " parsed without an error but to different facts";
    if (summary(b) != want) break;  // one report per image is enough
  }
  return errors;
}

std::vector<uint8_t> gcc_library(const testing::TempDir& d, const std::string& src, const std::string& flags) {
  testing::write_file(d.file("t.c"), std::vector<uint8_t>(src.begin(), src.end()));
  auto r = run_command("gcc -O1 -shared -fPIC " + flags + " " + shell_quote(d.file("t.c")) + " -o " +
                       shell_quote(d.file("t.so")));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return testing::read_file(d.file("t.so"));
}

TEST(Truncation, ElfFromGcc) {
  testing::TempDir d;
  auto lib = gcc_library(d, "#include <string.h>\nint f(char*a){return strlen(a);}",
                         "-Wl,-soname,libsmall.so -Wl,-rpath,'$ORIGIN'");
  EXPECT_GT(expect_prefix_property(lib, "gcc library"), lib.size() / 2);
}

TEST(Truncation, ElfAllClassesAndByteOrders) {
  for (bool is64 : {true, false})
    for (bool big : {false, true})
      expect_prefix_property(testing::tiny_elf(is64, big, is64 ? (big ? 22 : 62) : (big ? 20 : 3)),
                             std::string("tiny ELF ") + (is64 ? "64" : "32") + (big ? " BE" : " LE"));
}

TEST(Truncation, ElfWithFatbinSection) {
  testing::TempDir d;
  auto c = testing::synth_container({{2, 80}, {1, 90, 0x11, 8, 5}});
  testing::write_file(d.file("fatbin.bin"), c);
  std::string src = "__asm__(\".section .nv_fatbin,\\\"a\\\"\\n.balign 8\\n.incbin \\\"" + d.file("fatbin.bin") +
                    "\\\"\\n.text\\n\");\nint f(void){return 0;}\n";
  auto lib = gcc_library(d, src, "");
  expect_prefix_property(lib, "ELF with .nv_fatbin");
}

TEST(Truncation, MachOAndPe) {
  constexpr uint32_t kX86_64 = 0x01000007, kArm64 = 0x0100000c;
  expect_prefix_property(testing::macho_thin(kArm64, 0x000B0000, {"/usr/lib/libSystem.B.dylib"}, "@loader_path"),
                         "thin Mach-O");
  expect_prefix_property(testing::macho_fat({{kX86_64, testing::macho_thin(kX86_64, 0x000A0900, {"a"}, "b")},
                                             {kArm64, testing::macho_thin(kArm64, 0x000B0000, {"a"}, "b")}}),
                         "fat Mach-O");
  expect_prefix_property(testing::pe_image(0x8664, {"KERNEL32.dll", "python312.dll"}), "PE32+");
}

TEST(Truncation, BareFatbin) {
  auto c = testing::synth_container({{2, 86}, {1, 86, 0x11, 8, 5}, {2, 90, 0x100011}});
  expect_prefix_property(c, "bare fatbin");
}

// Random flips in a wheel with a stored ELF, a deflated module and the dist-info: each mutant fails
// (an error finding), or every entry it holds reads back to the original's name, size and hash.
TEST(Truncation, MutatedWheelsFailOrReadTheSame) {
  testing::TempDir d;
  auto r =
      run_command("echo 'int f(int x){return x*3;}' | gcc -shared -fPIC -x c - -o " + shell_quote(d.file("libm3.so")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto so = testing::read_file(d.file("libm3.so"));
  const std::string name = "mut-1.0-cp312-cp312-manylinux_2_17_x86_64.whl";
  auto base = testing::WheelBuilder("mut", "1.0", "cp312-cp312-manylinux_2_17_x86_64")
                  .purelib(false)
                  .add("mut/libm3.so", std::string(so.begin(), so.end()), /*store=*/true)
                  .add("mut/__init__.py", "import os\n" + std::string(2000, '#'))
                  .build();
  auto contents = [](const WheelFacts& f) {
    std::string s;
    for (const auto& e : f.entries) s += e.name + ":" + std::to_string(e.bytes_read) + ":" + e.sha256 + "\n";
    return s;
  };
  const std::string want = contents(testing::facts_of(base, name));
  uint32_t x = 12345;
  auto next = [&] { return x = x * 1103515245 + 12345; };
  size_t failed = 0;
  for (int i = 0; i < 400; ++i) {
    auto m = base;
    int flips = 1 + static_cast<int>(next() % 8);
    for (int k = 0; k < flips; ++k) m[next() % m.size()] ^= static_cast<uint8_t>(1u << (next() % 8));
    auto fs = testing::findings_of(m, name);
    if (has_errors(fs)) {
      ++failed;
      continue;
    }
    ASSERT_EQ(contents(testing::facts_of(m, name)), want) << "mutant " << i << " passed with different contents:\n"
                                                          << testing::dump(fs);
  }
  EXPECT_GT(failed, 200u);  // most flips land in protected bytes (CRC, headers, hashes)
}

}  // namespace
}  // namespace wc
