// --depth metadata: what it still catches (structure, dist-info, RECORD sizes, binary headers:
// architecture, executable stack), what it says it did not check (hashes, symbol versions, needed
// libraries, GPU code), and that it never turns "not read" into a finding.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "binary/binary_facts.h"
#include "facts/analyze.h"
#include "policy/policy.h"
#include "rules/rules.h"
#include "support/test_support.h"
#include "wheel_builder.h"

namespace wc {
namespace {

using testing::read_file;
using testing::run_command;
using testing::shell_quote;
using testing::TempDir;
using testing::WheelBuilder;

constexpr const char* kTag = "cp312-cp312-manylinux_2_17_x86_64";
constexpr const char* kFile = "pkg-1.0-cp312-cp312-manylinux_2_17_x86_64.whl";

struct Checked {
  WheelFacts facts;
  std::vector<Finding> findings;
};

Checked check_at(const std::vector<uint8_t>& zip, Depth depth, const std::string& filename = kFile) {
  static const Policy policy = load_policy("default");
  MemorySource src(filename, zip);
  AnalyzeOptions opt = analyze_options_for(policy);
  opt.depth = depth;
  Checked c{analyze_wheel(src, opt), {}};
  c.findings = check_wheel(c.facts, policy).findings;
  return c;
}

class DepthFixture : public ::testing::Test {
 protected:
  TempDir dir;
  std::string gcc(const std::string& name, const std::string& src, const std::string& flags) {
    std::string s = dir.file(name + ".c");
    testing::write_file(s, std::vector<uint8_t>(src.begin(), src.end()));
    auto r =
        run_command("gcc -O1 -shared -fPIC " + flags + " " + shell_quote(s) + " -o " + shell_quote(dir.file(name)));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    auto b = read_file(dir.file(name));
    return std::string(b.begin(), b.end());
  }
  // Needs GLIBC_2.26 (reallocarray), more than manylinux_2_17 allows; 200 KB of read-only data put
  // its dynamic section past the first 64 KiB, so metadata depth sees the headers only.
  std::string new_glibc_lib(const std::string& extra_flags = "") {
    return gcc("libnew.so",
               "#include <stdlib.h>\nconst char pad[200000] = {1};\n"
               "void* g(unsigned n) { return reallocarray((void*)pad, n, 2); }\n",
               extra_flags);
  }
};

TEST_F(DepthFixture, BinaryHeadersAreJudgedAndTheRestIsNotGuessed) {
  auto zip = WheelBuilder("pkg", "1.0", kTag).purelib(false).add("pkg/libnew.so", new_glibc_lib()).build();
  auto full = check_at(zip, Depth::full);
  EXPECT_TRUE(testing::has_rule(full.findings, "WC502")) << testing::dump(full.findings);
  auto meta = check_at(zip, Depth::metadata);
  EXPECT_TRUE(meta.facts.metadata_depth);
  ASSERT_EQ(meta.facts.binaries.size(), 1u);
  const BinaryFacts& b = meta.facts.binaries[0];
  EXPECT_TRUE(b.headers_only);
  EXPECT_EQ(b.arch, "x86_64");
  EXPECT_EQ(b.elf_type, "dyn");
  EXPECT_TRUE(b.needed.empty());
  EXPECT_TRUE(meta.findings.empty()) << "versions were not read, so nothing is said of them: "
                                     << testing::dump(meta.findings);
  const EntryFacts* e = meta.facts.find_entry("pkg/libnew.so");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->bytes_read, 64u << 10);
  EXPECT_NE(e->skipped.find("--depth metadata"), std::string::npos);
  EXPECT_TRUE(meta.facts.find_entry("pkg-1.0.dist-info/RECORD")->complete());
}

TEST_F(DepthFixture, WhatTheHeadersShowIsStillCaught) {
  // An x86_64 library in a wheel tagged aarch64, and one asking for an executable stack.
  auto aarch = WheelBuilder("pkg", "1.0", "cp312-cp312-manylinux_2_17_aarch64")
                   .purelib(false)
                   .add("pkg/libnew.so", new_glibc_lib())
                   .build();
  auto meta = check_at(aarch, Depth::metadata, "pkg-1.0-cp312-cp312-manylinux_2_17_aarch64.whl");
  EXPECT_TRUE(testing::has_rule(meta.findings, "WC501")) << testing::dump(meta.findings);
  auto stack =
      WheelBuilder("pkg", "1.0", kTag).purelib(false).add("pkg/libnew.so", new_glibc_lib("-Wl,-z,execstack")).build();
  EXPECT_TRUE(testing::has_rule(check_at(stack, Depth::metadata).findings, "WC509"));
}

TEST_F(DepthFixture, SmallBinariesAreReadWhole) {
  std::string small =
      gcc("libsmall.so", "#include <stdlib.h>\nvoid* g(unsigned n) { return reallocarray(0, n, 2); }\n", "");
  ASSERT_LT(small.size(), 64u << 10);
  auto zip = WheelBuilder("pkg", "1.0", kTag).purelib(false).add("pkg/libsmall.so", small).build();
  auto meta = check_at(zip, Depth::metadata);
  ASSERT_EQ(meta.facts.binaries.size(), 1u);
  EXPECT_FALSE(meta.facts.binaries[0].headers_only);
  EXPECT_TRUE(testing::has_rule(meta.findings, "WC502")) << testing::dump(meta.findings);
  EXPECT_TRUE(meta.facts.find_entry("pkg/libsmall.so")->complete());
}

TEST_F(DepthFixture, RecordSizesAgainstTheArchiveHashesNot) {
  // A content hash that differs: only reading the bytes shows it.
  auto hash = WheelBuilder("pkg", "1.0")
                  .add("pkg/a.py", "x = 1\n")
                  .edit_record([](auto& rows) { rows[0][1] = "sha256=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"; })
                  .build();
  EXPECT_TRUE(testing::has_rule(check_at(hash, Depth::full, "pkg-1.0-py3-none-any.whl").findings, "WC302"));
  EXPECT_TRUE(check_at(hash, Depth::metadata, "pkg-1.0-py3-none-any.whl").findings.empty());
  // A size that differs from what the zip declares: caught without inflating.
  auto size =
      WheelBuilder("pkg", "1.0").add("pkg/a.py", "x = 1\n").edit_record([](auto& rows) { rows[0][2] = "99"; }).build();
  auto meta = check_at(size, Depth::metadata, "pkg-1.0-py3-none-any.whl");
  ASSERT_TRUE(testing::has_rule(meta.findings, "WC303")) << testing::dump(meta.findings);
  EXPECT_NE(testing::dump(meta.findings).find("the archive declares 6 bytes, RECORD says 99"), std::string::npos);
}

TEST(Depth, CliSaysWhatWasNotChecked) {
  TempDir d;
  std::string w = WheelBuilder("good", "1.0").add("good/__init__.py", "").write(d.path());
  auto text = testing::run_wheelcheck({"check", "--depth", "metadata", w});
  EXPECT_EQ(text.exit_code, 0) << text.out << text.err;
  EXPECT_NE(text.out.find("--depth metadata: archive structure, dist-info and binary headers checked"),
            std::string::npos)
      << text.out;
  auto json = testing::run_wheelcheck({"check", "--depth", "metadata", "--format", "json", "--facts", w});
  auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["depth"], "metadata");
  EXPECT_EQ(j["wheels"][0]["facts"]["depth"], "metadata");
  EXPECT_EQ(nlohmann::json::parse(testing::run_wheelcheck({"check", "--format", "json", w}).out)["depth"], "full");
  EXPECT_EQ(testing::run_wheelcheck({"check", "--depth", "shallow", w}).exit_code, 2);
}

}  // namespace
}  // namespace wc
