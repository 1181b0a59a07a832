// Mach-O and PE readers on fixtures written by the small builders below (no Apple or Microsoft
// toolchain here). Each builder lays out only the structures the readers consume, with the
// documented field order; truncation loops run every reader over every prefix.
#include <gtest/gtest.h>

#include <cstring>

#include "binary/binary_facts.h"
#include "support/fixtures.h"
#include "support/test_support.h"
#include "wheel_builder.h"

namespace wc {
namespace {

using namespace wc::testing;

BinaryFacts parse(const std::vector<uint8_t>& b) {
  BinaryFacts f;
  parse_binary_image(b.data(), b.size(), f);
  return f;
}

constexpr uint32_t kX86_64 = 0x01000007, kArm64 = 0x0100000c;

TEST(MachO, ThinSlice) {
  auto f = parse(
      macho_thin(kArm64, 0x000B0000, {"/usr/lib/libSystem.B.dylib", "@rpath/libtorch.dylib"}, "@loader_path/../lib"));
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
  auto lib = macho_thin(kArm64, 0x000B0000,
                        {"/usr/lib/libSystem.B.dylib", "@rpath/libdep.dylib", "@loader_path/libnear.dylib"},
                        "@loader_path/../.dylibs");
  auto check = [&](const std::vector<std::string>& extra, const std::vector<uint8_t>& bin) {
    testing::WheelBuilder b("mac", "1.0", "cp312-cp312-macosx_11_0_arm64");
    b.purelib(false).add("mac/sub/_c.so", std::string(bin.begin(), bin.end()));
    for (const auto& e : extra) b.add(e, "stub");
    return testing::findings_of(b.build(), b.filename());
  };
  auto missing = check({}, lib);
  EXPECT_NE(testing::dump(missing).find("loads @rpath/libdep.dylib"), std::string::npos) << testing::dump(missing);
  EXPECT_NE(testing::dump(missing).find("loads @rpath/libdep.dylib, @loader_path/libnear.dylib, which each is neither"),
            std::string::npos)
      << testing::dump(missing);
  auto present = check({"mac/.dylibs/libdep.dylib", "mac/sub/libnear.dylib"}, lib);
  EXPECT_FALSE(testing::has_rule(present, "WC503")) << testing::dump(present);
  auto brew = check({}, macho_thin(kArm64, 0x000B0000, {"/opt/homebrew/opt/libomp/lib/libomp.dylib"}, "@loader_path"));
  EXPECT_NE(testing::dump(brew).find("/opt/homebrew"), std::string::npos) << testing::dump(brew);
}

// A fat header claiming 2^31 architectures: a binary that could not be checked, and the report says so.
TEST(MachO, AbsurdFatHeaderIsWC508) {
  auto fat = macho_fat({{kX86_64, macho_thin(kX86_64, 0x000A0900, {}, "")}});
  const uint8_t count[4] = {0x80, 0, 0, 0};  // big-endian nfat_arch = 2^31
  std::memcpy(fat.data() + 4, count, 4);
  WheelBuilder b("fat", "1.0", "cp312-cp312-macosx_10_9_universal2");
  b.purelib(false).add("fat/_ext.cpython-312-darwin.so", std::string(fat.begin(), fat.end()));
  auto fs = findings_of(b.build(), b.filename());
  EXPECT_TRUE(std::any_of(fs.begin(), fs.end(), [](const Finding& f) {
    return f.rule == "WC508" && f.message.find("2147483648") != std::string::npos &&
           f.entry == "fat/_ext.cpython-312-darwin.so";
  })) << dump(fs);
}

TEST(Pe, ImportsAndMachine) {
  auto f = parse(pe_image(0x8664, {"KERNEL32.dll", "python312.dll", "torch_cpu.dll"}));
  ASSERT_TRUE(f.errors.empty()) << f.errors[0];
  EXPECT_EQ(f.format, "pe");
  EXPECT_EQ(f.arch, "amd64");
  EXPECT_EQ(f.dlls, (std::vector<std::string>{"KERNEL32.dll", "python312.dll", "torch_cpu.dll"}));
}

// An 11 MB .pyd whose import table sits at the very end, after a well-formed .nv_fatb section: the
// loader maps all of it, so the reader reaches all of it, whatever number of imports it has.
TEST(Pe, ImportsAtTheEndOfALargeFile) {
  std::vector<std::string> dlls;
  for (int i = 0; i < 40; ++i) dlls.push_back("dep" + std::to_string(i) + ".dll");
  dlls.push_back("python312.dll");
  auto fat = synth_container({{2, 86}, {1, 86, 0x11, 8, 5}});
  auto pe = pe_image_with_fatbin(0x8664, dlls, fat, 11u << 20);
  WheelBuilder b("winx", "1.0", "cp312-cp312-win_amd64");
  b.purelib(false).add("winx/_ext.cp312-win_amd64.pyd", std::string(pe.begin(), pe.end()));
  for (const auto& d : dlls)
    if (d != "python312.dll") b.add("winx/" + d, "MZ");
  auto f = facts_of(b.build(), b.filename());
  const BinaryFacts* ext = nullptr;
  for (const auto& bin : f.binaries)
    if (bin.path == "winx/_ext.cp312-win_amd64.pyd") ext = &bin;
  ASSERT_NE(ext, nullptr);
  EXPECT_TRUE(ext->errors.empty()) << ext->errors.front();
  EXPECT_EQ(ext->machine, 0x8664);
  EXPECT_EQ(ext->dlls, dlls);
  EXPECT_EQ(ext->fatbin.sass(), (std::vector<std::string>{"sm_86"}));
  EXPECT_EQ(f.reinflated_bytes, 0u) << "the imports are planned for in the single pass";
  // The whole-image parser agrees.
  BinaryFacts whole;
  parse_binary_image(pe.data(), pe.size(), whole);
  EXPECT_EQ(whole.dlls, dlls);
}

TEST(Pe, RuleMachineVsTag) {
  auto arm = pe_image(0xaa64, {"KERNEL32.dll"});
  testing::WheelBuilder b("win", "1.0", "cp312-cp312-win_amd64");
  b.purelib(false).add("win/_c.pyd", std::string(arm.begin(), arm.end()));
  auto fs = testing::findings_of(b.build(), b.filename());
  EXPECT_NE(testing::dump(fs).find("PE machine is arm64, the tag says win_amd64"), std::string::npos)
      << testing::dump(fs);
}

}  // namespace
}  // namespace wc
