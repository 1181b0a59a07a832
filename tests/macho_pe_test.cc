// Mach-O and PE readers on fixtures written by the small builders below (no Apple or Microsoft
// toolchain here). Each builder lays out only the structures the readers consume, with the
// documented field order; truncation loops run every reader over every prefix.
#include <gtest/gtest.h>

#include <cstring>

#include "binary/binary_facts.h"
#include "support/test_support.h"
#include "wheel_builder.h"

namespace wc {
namespace {

struct Bytes {
  std::vector<uint8_t> v;
  bool big = false;
  Bytes& u32(uint32_t x) {
    for (int i = 0; i < 4; ++i) v.push_back(static_cast<uint8_t>(big ? x >> (24 - 8 * i) : x >> (8 * i)));
    return *this;
  }
  Bytes& u16(uint16_t x) {
    for (int i = 0; i < 2; ++i) v.push_back(static_cast<uint8_t>(big ? x >> (8 - 8 * i) : x >> (8 * i)));
    return *this;
  }
  Bytes& u64(uint64_t x) { return big ? u32(uint32_t(x >> 32)).u32(uint32_t(x)) : u32(uint32_t(x)).u32(uint32_t(x >> 32)); }
  Bytes& str(const std::string& s, size_t pad_to) {
    v.insert(v.end(), s.begin(), s.end());
    v.resize(v.size() + (pad_to - s.size()), 0);
    return *this;
  }
  Bytes& zeros(size_t n) { return v.resize(v.size() + n, 0), *this; }
};

// Thin 64-bit Mach-O (mach_header_64, then load commands): LC_BUILD_VERSION (platform 1 = macOS,
// minos/sdk as xxxx.yy.zz nibbles), LC_LOAD_DYLIB (dylib_command, name at offset 24), LC_RPATH.
std::vector<uint8_t> macho_thin(uint32_t cputype, uint32_t minos, const std::vector<std::string>& dylibs,
                                const std::string& rpath) {
  Bytes cmds;
  cmds.u32(0x32).u32(24).u32(1).u32(minos).u32(0x000E0000).u32(0);  // LC_BUILD_VERSION, ntools 0
  for (const auto& d : dylibs) {
    uint32_t size = static_cast<uint32_t>((24 + d.size() + 1 + 7) & ~size_t(7));
    cmds.u32(0xc).u32(size).u32(24).u32(0).u32(0x10000).u32(0x10000).str(d, size - 24);
  }
  uint32_t rsize = static_cast<uint32_t>((12 + rpath.size() + 1 + 7) & ~size_t(7));
  cmds.u32(0x8000001c).u32(rsize).u32(12).str(rpath, rsize - 12);
  Bytes h;
  h.u32(0xfeedfacf).u32(cputype).u32(0).u32(6 /* MH_DYLIB */).u32(static_cast<uint32_t>(dylibs.size() + 2))
      .u32(static_cast<uint32_t>(cmds.v.size())).u32(0).u32(0);
  h.v.insert(h.v.end(), cmds.v.begin(), cmds.v.end());
  return h.v;
}

// Fat (universal) header: big-endian fat_header + fat_arch {cputype, subtype, offset, size, align}.
std::vector<uint8_t> macho_fat(const std::vector<std::pair<uint32_t, std::vector<uint8_t>>>& slices) {
  Bytes f;
  f.big = true;
  f.u32(0xcafebabe).u32(static_cast<uint32_t>(slices.size()));
  uint32_t off = 4096;
  std::vector<uint32_t> offs;
  for (const auto& [cpu, data] : slices) {
    f.u32(cpu).u32(0).u32(off).u32(static_cast<uint32_t>(data.size())).u32(12);
    offs.push_back(off);
    off += static_cast<uint32_t>((data.size() + 4095) & ~size_t(4095));
  }
  f.v.resize(off, 0);
  for (size_t i = 0; i < slices.size(); ++i) std::memcpy(f.v.data() + offs[i], slices[i].second.data(), slices[i].second.size());
  return f.v;
}

// PE32+: DOS header (e_lfanew at 0x3c), "PE\0\0", COFF header, optional header (magic 0x20b,
// 16 data directories, import directory = #1), one section ".idata" holding the import
// descriptors (20 bytes each, zero-terminated) and the DLL names.
std::vector<uint8_t> pe_image(uint16_t machine, const std::vector<std::string>& dlls) {
  const uint32_t sect_rva = 0x1000, sect_raw = 0x200;
  Bytes idata;
  uint32_t names_at = static_cast<uint32_t>(20 * (dlls.size() + 1));
  std::vector<uint32_t> name_rvas;
  uint32_t cur = names_at;
  for (const auto& d : dlls) {
    name_rvas.push_back(sect_rva + cur);
    cur += static_cast<uint32_t>(d.size() + 1);
  }
  for (size_t i = 0; i < dlls.size(); ++i) idata.u32(sect_rva + 0x800).u32(0).u32(0).u32(name_rvas[i]).u32(sect_rva + 0x800);
  idata.zeros(20);
  for (const auto& d : dlls) idata.str(d, d.size() + 1);
  idata.v.resize(0x900, 0);
  Bytes p;
  p.str("MZ", 2).zeros(0x3c - 2).u32(0x80).zeros(0x80 - 0x40);
  p.str("PE", 2).u16(0).u16(machine).u16(1).u32(0).u32(0).u32(0).u16(240).u16(0x2022);
  size_t opt = p.v.size();
  p.u16(0x20b).zeros(106).u32(16);  // NumberOfRvaAndSizes at optional+108
  p.u32(0).u32(0).u32(sect_rva).u32(static_cast<uint32_t>(20 * (dlls.size() + 1)));
  p.zeros(240 - (p.v.size() - opt));
  p.str(".idata", 8).u32(0x900).u32(sect_rva).u32(0x900).u32(sect_raw).zeros(16);
  p.v.resize(sect_raw, 0);
  p.v.insert(p.v.end(), idata.v.begin(), idata.v.end());
  return p.v;
}

BinaryFacts parse(const std::vector<uint8_t>& b) {
  BinaryFacts f;
  parse_binary_image(b.data(), b.size(), f);
  return f;
}

constexpr uint32_t kX86_64 = 0x01000007, kArm64 = 0x0100000c;

TEST(MachO, ThinSlice) {
  auto f = parse(macho_thin(kArm64, 0x000B0000, {"/usr/lib/libSystem.B.dylib", "@rpath/libtorch.dylib"}, "@loader_path/../lib"));
  ASSERT_TRUE(f.errors.empty()) << f.errors[0];
  EXPECT_EQ(f.format, "macho");
  ASSERT_EQ(f.slices.size(), 1u);
  EXPECT_EQ(f.slices[0].arch, "arm64");
  EXPECT_EQ(f.slices[0].minos, "11.0");
  EXPECT_EQ(f.slices[0].dylibs, (std::vector<std::string>{"/usr/lib/libSystem.B.dylib", "@rpath/libtorch.dylib"}));
  EXPECT_EQ(f.slices[0].rpaths, std::vector<std::string>{"@loader_path/../lib"});
}

TEST(MachO, UniversalTwoSlices) {
  auto f = parse(macho_fat({{kX86_64, macho_thin(kX86_64, 0x000A0900, {"/usr/lib/libc++.1.dylib"}, "@loader_path")},
                            {kArm64, macho_thin(kArm64, 0x000B0000, {"/usr/lib/libc++.1.dylib"}, "@loader_path")}}));
  ASSERT_TRUE(f.errors.empty()) << f.errors[0];
  EXPECT_EQ(f.arch, "universal2");
  ASSERT_EQ(f.slices.size(), 2u);
  EXPECT_EQ(f.slices[0].minos, "10.9");
}

TEST(MachO, RulesMinosAndArch) {
  auto thin = macho_thin(kArm64, 0x000D0000, {"/usr/lib/libSystem.B.dylib"}, "@loader_path");  // needs macOS 13
  auto check = [&](const std::string& tag, const std::vector<uint8_t>& bin) {
    testing::WheelBuilder b("mac", "1.0", tag);
    b.purelib(false).add("mac/_c.so", std::string(bin.begin(), bin.end()));
    return testing::findings_of(b.build(), b.filename());
  };
  auto old = check("cp312-cp312-macosx_11_0_arm64", thin);
  EXPECT_NE(testing::dump(old).find("needs macOS 13.0"), std::string::npos) << testing::dump(old);
  EXPECT_FALSE(testing::has_rule(check("cp312-cp312-macosx_13_0_arm64", thin), "WC506"));
  auto wrong_arch = check("cp312-cp312-macosx_13_0_x86_64", thin);
  EXPECT_NE(testing::dump(wrong_arch).find("needs a x86_64 slice"), std::string::npos) << testing::dump(wrong_arch);
  auto universal = check("cp312-cp312-macosx_13_0_universal2", thin);
  EXPECT_TRUE(testing::has_rule(universal, "WC506")) << testing::dump(universal);
  EXPECT_TRUE(testing::has_rule(check("cp312-cp312-manylinux_2_28_x86_64", thin), "WC501"));
}

TEST(MachO, InstallNamesResolve) {
  auto lib = macho_thin(kArm64, 0x000B0000, {"/usr/lib/libSystem.B.dylib", "@rpath/libdep.dylib", "@loader_path/libnear.dylib"},
                        "@loader_path/../.dylibs");
  auto check = [&](const std::vector<std::string>& extra, const std::vector<uint8_t>& bin) {
    testing::WheelBuilder b("mac", "1.0", "cp312-cp312-macosx_11_0_arm64");
    b.purelib(false).add("mac/sub/_c.so", std::string(bin.begin(), bin.end()));
    for (const auto& e : extra) b.add(e, "stub");
    return testing::findings_of(b.build(), b.filename());
  };
  auto missing = check({}, lib);
  EXPECT_NE(testing::dump(missing).find("loads @rpath/libdep.dylib"), std::string::npos) << testing::dump(missing);
  EXPECT_NE(testing::dump(missing).find("loads @loader_path/libnear.dylib"), std::string::npos) << testing::dump(missing);
  auto present = check({"mac/.dylibs/libdep.dylib", "mac/sub/libnear.dylib"}, lib);
  EXPECT_FALSE(testing::has_rule(present, "WC503")) << testing::dump(present);
  auto brew = check({}, macho_thin(kArm64, 0x000B0000, {"/opt/homebrew/opt/libomp/lib/libomp.dylib"}, "@loader_path"));
  EXPECT_NE(testing::dump(brew).find("/opt/homebrew"), std::string::npos) << testing::dump(brew);
}

TEST(Pe, ImportsAndMachine) {
  auto f = parse(pe_image(0x8664, {"KERNEL32.dll", "python312.dll", "torch_cpu.dll"}));
  ASSERT_TRUE(f.errors.empty()) << f.errors[0];
  EXPECT_EQ(f.format, "pe");
  EXPECT_EQ(f.arch, "amd64");
  EXPECT_EQ(f.dlls, (std::vector<std::string>{"KERNEL32.dll", "python312.dll", "torch_cpu.dll"}));
}

TEST(Pe, RuleMachineVsTag) {
  auto arm = pe_image(0xaa64, {"KERNEL32.dll"});
  testing::WheelBuilder b("win", "1.0", "cp312-cp312-win_amd64");
  b.purelib(false).add("win/_c.pyd", std::string(arm.begin(), arm.end()));
  auto fs = testing::findings_of(b.build(), b.filename());
  EXPECT_NE(testing::dump(fs).find("PE machine is arm64, the tag says win_amd64"), std::string::npos) << testing::dump(fs);
}

TEST(BinaryReaders, EveryTruncationIsACleanError) {
  std::vector<std::vector<uint8_t>> images = {
      macho_thin(kArm64, 0x000B0000, {"/usr/lib/libSystem.B.dylib"}, "@loader_path"),
      macho_fat({{kX86_64, macho_thin(kX86_64, 0x000A0900, {"a"}, "b")}, {kArm64, macho_thin(kArm64, 0x000B0000, {"a"}, "b")}}),
      pe_image(0x8664, {"KERNEL32.dll", "python312.dll"})};
  for (const auto& img : images) {
    size_t reported = 0;
    for (size_t n = 0; n < img.size(); ++n) {
      BinaryFacts f;
      parse_binary_image(img.data(), n, f);  // must not crash or throw
      reported += !f.errors.empty();
    }
    EXPECT_GT(reported, img.size() / 2);
  }
}

}  // namespace
}  // namespace wc
