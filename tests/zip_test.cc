// Hostile archives: every one must give a clean finding (WC4xx), never a crash or a hang.
#include <gtest/gtest.h>

#include <cstring>

#include "io/zip_index.h"
#include "support/test_support.h"
#include "wheel_builder.h"

namespace wc {
namespace {

using testing::BuiltEntry;
using testing::WheelBuilder;

const char* kGoodName = "demo-1.0-py3-none-any.whl";

std::vector<uint8_t> good_wheel() {
  return WheelBuilder("demo", "1.0")
      .add("demo/__init__.py", "x = 1\n")
      .add("demo/data.txt", std::string(3000, 'q'))
      .build();
}

// Offsets of every record with the given signature (test-side zip walking; fine for our small files).
std::vector<size_t> find_sig(const std::vector<uint8_t>& z, uint32_t sig) {
  std::vector<size_t> out;
  for (size_t i = 0; i + 4 <= z.size(); ++i) {
    uint32_t v;
    std::memcpy(&v, z.data() + i, 4);
    if (v == sig) out.push_back(i);
  }
  return out;
}

void put16(std::vector<uint8_t>& z, size_t at, uint16_t v) { std::memcpy(z.data() + at, &v, 2); }
void put32(std::vector<uint8_t>& z, size_t at, uint32_t v) { std::memcpy(z.data() + at, &v, 4); }
uint32_t get32(const std::vector<uint8_t>& z, size_t at) {
  uint32_t v;
  std::memcpy(&v, z.data() + at, 4);
  return v;
}

TEST(Zip, GoodWheelIsClean) {
  auto fs = testing::findings_of(good_wheel(), kGoodName);
  EXPECT_TRUE(fs.empty()) << testing::dump(fs);
  auto f = testing::facts_of(good_wheel(), kGoodName);
  ASSERT_EQ(f.entries.size(), 5u);
  EXPECT_EQ(f.entries[0].sha256, testing::sha256_record("x = 1\n").substr(7));
}

TEST(Zip, EveryTruncationIsACleanWC404) {
  auto z = good_wheel();
  for (size_t n = 0; n < z.size(); ++n) {
    std::vector<uint8_t> cut(z.begin(), z.begin() + static_cast<long>(n));
    auto fs = testing::findings_of(cut, kGoodName);
    ASSERT_TRUE(testing::has_rule(fs, "WC404")) << "prefix of " << n << " bytes:\n" << testing::dump(fs);
  }
}

TEST(Zip, NotAZip) {
  std::vector<uint8_t> junk(5000, 0x41);
  auto fs = testing::findings_of(junk, kGoodName);
  ASSERT_EQ(fs.size(), 1u) << testing::dump(fs);
  EXPECT_EQ(fs[0].rule, "WC404");
  EXPECT_NE(fs[0].message.find("not a zip"), std::string::npos);
}

TEST(Zip, LocalHeaderNameDiffersFromCentral) {
  auto z = good_wheel();
  auto locals = find_sig(z, 0x04034b50);
  ASSERT_FALSE(locals.empty());
  z[locals[0] + 30] = 'X';  // first byte of the first local name
  auto fs = testing::findings_of(z, kGoodName);
  ASSERT_TRUE(testing::has_rule(fs, "WC404")) << testing::dump(fs);
  EXPECT_NE(testing::dump(fs).find("local header name"), std::string::npos) << testing::dump(fs);
}

TEST(Zip, TrailingAndPrependedBytes) {
  auto z = good_wheel();
  auto trailing = z;
  trailing.insert(trailing.end(), 100, 'T');
  auto fs = testing::findings_of(trailing, kGoodName);
  EXPECT_NE(testing::dump(fs).find("trailing bytes"), std::string::npos) << testing::dump(fs);
  std::vector<uint8_t> prepended(z.size() + 64, 'P');
  std::copy(z.begin(), z.end(), prepended.begin() + 64);
  fs = testing::findings_of(prepended, kGoodName);
  EXPECT_TRUE(testing::has_rule(fs, "WC404")) << testing::dump(fs);
}

TEST(Zip, CrcMismatchInStoredEntry) {
  auto z = WheelBuilder("demo", "1.0").add("demo/blob.bin", std::string(500, 'a'), /*store=*/true).build();
  auto locals = find_sig(z, 0x04034b50);
  size_t name_len = z[locals[0] + 26] | (z[locals[0] + 27] << 8);
  size_t extra_len = z[locals[0] + 28] | (z[locals[0] + 29] << 8);
  z[locals[0] + 30 + name_len + extra_len + 10] ^= 0xff;
  auto fs = testing::findings_of(z, kGoodName);
  ASSERT_TRUE(testing::has_rule(fs, "WC404")) << testing::dump(fs);
  bool named = false;
  for (const auto& f : fs) named |= f.rule == "WC404" && f.entry == "demo/blob.bin";
  EXPECT_TRUE(named) << testing::dump(fs);
}

TEST(Zip, EntryInflatingPastItsDeclaredSize) {
  auto z = WheelBuilder("demo", "1.0").add("demo/data.txt", std::string(5000, 'z')).build();
  auto centrals = find_sig(z, 0x02014b50);
  put32(z, centrals[0] + 24, 100);  // declared uncompressed size: 100, actual 5000
  auto fs = testing::findings_of(z, kGoodName);
  EXPECT_NE(testing::dump(fs).find("inflates past its declared size"), std::string::npos) << testing::dump(fs);
}

TEST(Zip, OverlappingEntries) {
  auto z = good_wheel();
  auto centrals = find_sig(z, 0x02014b50);
  ASSERT_GE(centrals.size(), 2u);
  put32(z, centrals[1] + 42, get32(z, centrals[0] + 42));  // second entry points at the first's data
  auto fs = testing::findings_of(z, kGoodName);
  ASSERT_TRUE(testing::has_rule(fs, "WC404")) << testing::dump(fs);
}

TEST(Zip, DuplicateNames) {
  auto z = testing::build_zip(
      {{"demo/a.py", "1", false, "", true}, {"demo/a.py", "2", false, "", true}, {"demo/A.py", "3", false, "", true}});
  auto fs = testing::findings_of(z, kGoodName);
  ASSERT_TRUE(testing::has_rule(fs, "WC307")) << testing::dump(fs);
  int errors = 0, warnings = 0;
  for (const auto& f : fs)
    if (f.rule == "WC307") (f.severity == Severity::error ? errors : warnings)++;
  EXPECT_EQ(errors, 1);
  EXPECT_EQ(warnings, 1);  // case-only collision
}

// A name three times is one WC307 (at its second entry), a RECORD row three times two WC301s (each
// row after the first), and an entry RECORD lists only more than once is still listed (no WC304).
TEST(Zip, NamesAndRowsRepeatedThrice) {
  auto z = testing::build_zip({{"demo/a.py", "1", false, "", true},
                               {"demo/a.py", "2", false, "", true},
                               {"demo/a.py", "3", false, "", true},
                               {"demo/b.py", "4", false, "", true}});
  auto fs = testing::findings_of(z, kGoodName);
  int names = 0;
  for (const auto& f : fs) names += f.rule == "WC307" && f.entry == "demo/a.py";
  EXPECT_EQ(names, 1) << testing::dump(fs);
  auto w = testing::WheelBuilder("demo", "1.0")
               .add("demo/a.py", "x = 1\n")
               .edit_record([](std::vector<std::vector<std::string>>& rows) {
                 for (auto row : std::vector(rows))
                   if (row[0] == "demo/a.py") rows.push_back(row), rows.push_back(row);
               })
               .build();
  auto rs = testing::findings_of(w, "demo-1.0-py3-none-any.whl");
  int repeated = 0;
  for (const auto& f : rs) repeated += f.rule == "WC301" && f.message.find("more than once") != std::string::npos;
  EXPECT_EQ(repeated, 2) << testing::dump(rs);
  EXPECT_FALSE(testing::has_rule(rs, "WC304")) << testing::dump(rs);
}

TEST(Zip, UnsafePaths) {
  std::vector<std::pair<std::string, std::string>> cases = {
      {"../evil.py", "'..'"},         {"demo/../../evil.py", "'..'"},
      {"/etc/passwd", "absolute"},    {"demo\\evil.py", "backslash"},
      {"C:/evil.py", "drive letter"}, {"demo/\x01x.py", "control"},
      {"demo/\xff.py", "UTF-8"},      {"demo/" + std::string(2000, 'a') + ".py", "over the limit"}};
  for (const auto& [name, why] : cases) {
    auto z = testing::build_zip({{"demo/__init__.py", "", false, "", true}, {name, "x", false, "", true}});
    auto fs = testing::findings_of(z, kGoodName);
    bool found = false;
    for (const auto& f : fs) found |= f.rule == "WC401" && f.message.find(why) != std::string::npos;
    EXPECT_TRUE(found) << "path " << testing::shell_quote(name) << ":\n" << testing::dump(fs);
  }
}

TEST(Zip, SymlinkEntry) {
  auto z = WheelBuilder("demo", "1.0").add("demo/__init__.py", "").add_symlink("demo/link", "/etc/shadow").build();
  auto fs = testing::findings_of(z, kGoodName);
  EXPECT_TRUE(testing::has_rule(fs, "WC402")) << testing::dump(fs);
}

TEST(Zip, CompressionBombIsNotInflated) {
  auto z = WheelBuilder("demo", "1.0").add("demo/zeros.bin", std::string(64u << 20, '\0')).build();
  ASSERT_LT(z.size(), 1u << 20);
  auto f = testing::facts_of(z, kGoodName);
  const EntryFacts* e = f.find_entry("demo/zeros.bin");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->bytes_read, 0u);  // the ratio check fires before inflating
  EXPECT_FALSE(e->skipped.empty());
  auto fs = testing::findings_of(z, kGoodName);
  ASSERT_TRUE(testing::has_rule(fs, "WC403")) << testing::dump(fs);
  EXPECT_FALSE(testing::has_rule(fs, "WC302"));  // not inflated, so no hash verdict either way
}

TEST(Zip, TotalSizeLimitStopsReading) {
  testing::TempDir tmp;
  std::string pol = tmp.file("small.json");
  testing::write_file(pol, std::vector<uint8_t>{});
  {
    std::string text = R"({"limits": {"max_total_uncompressed_bytes": 10000}})";
    testing::write_file(pol, std::vector<uint8_t>(text.begin(), text.end()));
  }
  std::string random;
  uint32_t x = 1;
  for (int i = 0; i < 40000; ++i) random.push_back(static_cast<char>((x = x * 1103515245 + 12345) >> 24));
  auto z = WheelBuilder("demo", "1.0").add("demo/a.bin", random).build();
  auto fs = testing::findings_of(z, kGoodName, pol);
  EXPECT_TRUE(testing::has_rule(fs, "WC403")) << testing::dump(fs);
}

TEST(Zip, OversizeMetadataIsReportedNotParsed) {
  testing::TempDir tmp;
  std::string text = R"({"limits": {"max_metadata_bytes": 64}})";
  testing::write_file(tmp.file("small.json"), std::vector<uint8_t>(text.begin(), text.end()));
  auto z = WheelBuilder("demo", "1.0")
               .add("demo/__init__.py", "")
               .metadata("Metadata-Version: 2.1\nName: demo\nVersion: 1.0\nSummary: " + std::string(200, 's') + "\n")
               .build();
  auto fs = testing::findings_of(z, kGoodName, tmp.file("small.json"));
  std::string d = testing::dump(fs);
  EXPECT_NE(d.find("METADATA is larger than the metadata size limit"), std::string::npos) << d;
  EXPECT_EQ(d.find("has no Name"), std::string::npos) << d;  // not parsed, so no invented field findings
  EXPECT_FALSE(testing::has_rule(fs, "WC302")) << d;         // its hash is still verified, and matches
}

TEST(Zip, EntryCountLimit) {
  testing::TempDir tmp;
  std::string text = R"({"limits": {"max_entries": 3}})";
  testing::write_file(tmp.file("few.json"), std::vector<uint8_t>(text.begin(), text.end()));
  auto fs = testing::findings_of(good_wheel(), kGoodName, tmp.file("few.json"));
  EXPECT_TRUE(testing::has_rule(fs, "WC403")) << testing::dump(fs);
  EXPECT_FALSE(testing::has_rule(fs, "WC404")) << testing::dump(fs);  // unread entries are not "truncated"
}

TEST(Zip, NonStandardCompressionMethod) {
  auto z = WheelBuilder("demo", "1.0").add("demo/a.py", "pass\n", true).build();
  auto centrals = find_sig(z, 0x02014b50);
  auto locals = find_sig(z, 0x04034b50);
  put16(z, centrals[0] + 10, 12);  // bzip2
  put16(z, locals[0] + 8, 12);
  auto fs = testing::findings_of(z, kGoodName);
  EXPECT_TRUE(testing::has_rule(fs, "WC405")) << testing::dump(fs);
}

TEST(ZipIndex, ReadsCentralDirectory) {
  auto z = good_wheel();
  MemorySource src("x.whl", z);
  ZipIndex idx = read_zip_index(src);
  ASSERT_TRUE(idx.ok());
  EXPECT_TRUE(idx.inconsistent.empty());
  ASSERT_EQ(idx.entries.size(), 5u);
  EXPECT_EQ(idx.entries[0].name, "demo/__init__.py");
  EXPECT_EQ(idx.entries[1].uncompressed_size, 3000u);
  EXPECT_EQ(idx.entries[1].method, 8);
}

}  // namespace
}  // namespace wc

namespace wc {
namespace {

// Random byte flips over a wheel holding a gcc-built library: every mutant must analyse without a
// crash or hang (findings are whatever they are). Deterministic seed, so failures reproduce.
}  // namespace
}  // namespace wc

namespace wc {
namespace {

// Random byte flips over a wheel holding a gcc-built library: every mutant must analyse without a
// crash or hang (findings are whatever they are). Deterministic seed, so failures reproduce.
TEST(Zip, MutatedWheelsNeverCrash) {
  testing::TempDir d;
  auto r = testing::run_command("echo 'int f(int x){return x*3;}' | gcc -shared -fPIC -x c - -o " +
                                testing::shell_quote(d.file("libm3.so")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto so = testing::read_file(d.file("libm3.so"));
  auto base = WheelBuilder("mut", "1.0", "cp312-cp312-manylinux_2_17_x86_64")
                  .purelib(false)
                  .add("mut/libm3.so", std::string(so.begin(), so.end()), /*store=*/true)
                  .add("mut/__init__.py", "import os\n")
                  .build();
  uint32_t x = 12345;
  auto next = [&] { return x = x * 1103515245 + 12345; };
  for (int i = 0; i < 400; ++i) {
    auto m = base;
    int flips = 1 + static_cast<int>(next() % 8);
    for (int k = 0; k < flips; ++k) m[next() % m.size()] ^= static_cast<uint8_t>(1u << (next() % 8));
    auto fs = testing::findings_of(m, "mut-1.0-cp312-cp312-manylinux_2_17_x86_64.whl");
    (void)fs;
  }
}

}  // namespace
}  // namespace wc
