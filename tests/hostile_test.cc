// Hostile text fields: huge numbers, huge lines, control characters, long names. Each case is a
// small wheel with one bad field and the exact finding it must produce; the whole table also runs
// through the CLI in one `-j 2` batch, where every wheel must get its own verdict and nothing may
// stop the batch.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/test_support.h"
#include "wheel_builder.h"

namespace wc {
namespace {

using testing::WheelBuilder;

struct HostileCase {
  std::string label;
  std::function<WheelBuilder()> make;
  std::string rule;     // the finding it must produce ("" = none: the wheel passes)
  std::string message;  // a substring of that finding's message
};

std::string huge(size_t n, char c = 'a') { return std::string(n, c); }

std::vector<HostileCase> cases() {
  const std::string big = "99999999999999999999999";  // over 64 bits
  return {
      {"abi tag number over int",
       [=] { return WheelBuilder("h", "1.0", "cp312-cp3" + big + "-manylinux_2_17_x86_64").purelib(false); }, "WC105",
       "names no CPython version"},
      {"python tag number over int", [=] { return WheelBuilder("h", "1.0", "cp3" + big + "-none-any"); }, "WC105",
       "names no CPython version"},
      {"ios version over int",
       [=] { return WheelBuilder("h", "1.0", "cp313-cp313-ios_" + big + "_0_arm64_iphoneos").purelib(false); }, "WC106",
       "expected ios_MAJOR_MINOR_ARCH_SDK"},
      {"android api level over int",
       [=] { return WheelBuilder("h", "1.0", "cp313-cp313-android_" + big + "_arm64_v8a").purelib(false); }, "WC106",
       "expected android_APILEVEL_ABI"},
      {"manylinux glibc over int",
       [=] { return WheelBuilder("h", "1.0", "py3-none-manylinux_2_" + big + "_x86_64").purelib(false); }, "WC106",
       "expected manylinux_X_Y_ARCH"},
      {"cuda pin over int",
       [=] { return WheelBuilder("h", "1.0+cu128").requires_dist("nvidia-cudnn-cu" + big + "==9.1"); }, "", ""},
      {"cuda local version over int", [=] { return WheelBuilder("h", "1.0+cu" + big); }, "", ""},
      {"RECORD size over 64 bits",
       [=] {
         return WheelBuilder("h", "1.0").add("h/x.py", "x").edit_record([=](auto& rows) {
           for (auto& r : rows)
             if (r[0] == "h/x.py") r[2] = big;
         });
       },
       "WC303", "RECORD says " + big},
      {"Metadata-Version over int",
       [=] { return WheelBuilder("h", "1.0").metadata("Metadata-Version: 2." + big + "\nName: h\nVersion: 1.0\n"); },
       "WC202", "Metadata-Version"},
      {"Wheel-Version over int",
       [=] {
         return WheelBuilder("h", "1.0")
             .wheel_file("Wheel-Version: " + big + ".0\nGenerator: t\nRoot-Is-Purelib: true\nTag: py3-none-any\n");
       },
       "WC104", "major version"},
      {"1 MiB Requires-Dist line",
       [=] { return WheelBuilder("h", "1.0").requires_dist("nvidia-" + huge(1 << 20, 'x') + "-cu12==1"); }, "", ""},
      {"1 MiB Requires-Python", [=] { return WheelBuilder("h", "1.0").requires_python(">=3." + huge(1 << 20, '9')); },
       "WC202", "Requires-Python"},
      // A zip name field holds at most 64 KiB (and libarchive 3.6's writer overflows past it).
      {"60 KiB entry name", [=] { return WheelBuilder("h", "1.0").add("h/" + huge(60 * 1024) + ".py", "x"); }, "WC401",
       "over the limit of 1024"},
      {"control character in a name", [=] { return WheelBuilder("h", "1.0").add(std::string("h/a\x1b[2Jb.py"), "x"); },
       "WC401", "control character"},
      {"long extension-module name",
       [=] {
         return WheelBuilder("h", "1.0", "cp312-cp312-manylinux_2_17_x86_64")
             .purelib(false)
             .add("h/m.cpython-" + huge(5000, '3') + "-x86_64-linux-gnu.so", "x");
       },
       "WC105", "names no CPython version"},
      {"NUL in a METADATA value",
       [=] {
         return WheelBuilder("h", "1.0")
             .metadata("Metadata-Version: 2.1\nName: h\nVersion: 1.0\nSummary: a" + std::string(1, '\0') + "b\n");
       },
       "WC202", "control character"},
  };
}

bool has(const std::vector<Finding>& fs, const std::string& rule, const std::string& msg) {
  return std::any_of(fs.begin(), fs.end(),
                     [&](const Finding& f) { return f.rule == rule && f.message.find(msg) != std::string::npos; });
}

TEST(Hostile, EachFieldGetsItsExactFinding) {
  for (const auto& c : cases()) {
    WheelBuilder b = c.make();
    auto fs = testing::findings_of(b.build(), b.filename());
    if (c.rule.empty()) {
      EXPECT_FALSE(has_errors(fs)) << c.label << ":\n" << testing::dump(fs);
    } else {
      EXPECT_TRUE(has(fs, c.rule, c.message)) << c.label << ": expected " << c.rule << " '" << c.message << "', got:\n"
                                              << testing::dump(fs);
    }
  }
}

// All of them in one run with two workers: one verdict per wheel, exit 1, no signal.
TEST(Hostile, OneBatchTwoWorkers) {
  testing::TempDir d;
  auto all = cases();
  for (size_t i = 0; i < all.size(); ++i) {
    testing::TempDir sub;
    WheelBuilder b = all[i].make();
    std::filesystem::create_directories(d.file(std::to_string(i)));
    b.write(d.file(std::to_string(i)));
  }
  auto r = testing::run_wheelcheck({"check", "-j", "2", "-q", "--format", "json", d.path()});
  ASSERT_EQ(r.exit_code, 1) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["wheels"].size(), all.size());
}

}  // namespace
}  // namespace wc
