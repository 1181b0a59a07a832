// Cases ported from the peers' own test suites (issue 31): each test names the peer test its case
// comes from; the verdict is the peer's, reproduced by running the peer (PyPI's upload checks in
// pypi/warehouse, pip and pypa/installer). The archives are built here byte by byte.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <nlohmann/json.hpp>
#include <random>

#include "policy/policy.h"
#include "rules/metadata/platform_tag.h"
#include "support/raw_zip.h"
#include "support/test_support.h"
#include "wheel_builder.h"

namespace wc {
namespace {

using namespace wc::testing;

const char* const kName = "o-1.0-py3-none-any.whl";

// A ZIP64 extra field (0x0001) holding only the compressed size, in both headers, whose 32-bit
// slot is saturated: zipfile, libarchive and PyPI read the size from the extra.
void zip64_compressed_size(RawEntry& e, uint64_t csize) {
  e.csize = 0xFFFFFFFF;
  e.local_extra = e.central_extra = le16(0x0001) + le16(8) + le64(csize);
}

std::string wheel_with_zip64_size(size_t which, int64_t extra_bytes) {
  auto entries = raw_wheel_entries("o", {raw_file("o/__init__.py", "x = 1\n"), raw_file("o/a.py", "y = 2\n")});
  RawEntry& e = entries[which];
  zip64_compressed_size(e, e.data.size() + extra_bytes);
  return raw_zip(entries);
}

// warehouse tests/unit/utils/test_zipfiles.py, reject/zip64_extra_csize.zip ("Malformed zip
// file"): the ZIP64 extra's compressed size runs one byte past the data, into the next record.
// The central directory cannot see it (the local extra field moves the data), the local header can.
TEST(PeerArchive, Zip64CompressedSizeIntoTheNextLocalHeaderIsAnOverlap) {
  auto fs = findings_of(bytes_of(wheel_with_zip64_size(0, 1)), kName);
  EXPECT_TRUE(says(fs, "o/__init__.py: entry data overlaps the entry 'o/a.py'")) << dump(fs);
  EXPECT_TRUE(has_rule(fs, "WC404")) << dump(fs);
}

TEST(PeerArchive, Zip64CompressedSizeIntoTheCentralDirectoryIsAnOverlap) {
  auto entries = raw_wheel_entries("o", {raw_file("o/__init__.py", "x = 1\n")});
  zip64_compressed_size(entries.back(), entries.back().data.size() + 1);  // RECORD, just before the directory
  auto fs = findings_of(bytes_of(raw_zip(entries)), kName);
  EXPECT_TRUE(says(fs, "RECORD: entry data overlaps the central directory")) << dump(fs);
}

// The control: the same ZIP64 extra with the true size (warehouse accept/short_usize_zip64.zip
// reads ZIP64 sizes too) is no finding of the archive.
TEST(PeerArchive, HonestZip64CompressedSizeIsNoOverlap) {
  auto fs = findings_of(bytes_of(wheel_with_zip64_size(0, 0)), kName);
  EXPECT_FALSE(has_rule(fs, "WC404")) << dump(fs);
  EXPECT_FALSE(has_rule(fs, "WC403")) << dump(fs);
}

// A ZIP64 end record of 44 + `extensible` bytes after its size field, with its locator and a
// saturated end record.
std::string zip64_end_with_extensible_data(size_t extensible) {
  auto entries = raw_wheel_entries("o", {raw_file("o/__init__.py", "x = 1\n")});
  Laid l = lay_out(entries);
  uint64_t cd = l.locals.size(), rec_at = cd + l.central.size();
  std::string rec = zip64_end_record(entries.size(), l.central.size(), cd);
  rec.replace(4, 8, le64(44 + extensible));
  rec += std::string(extensible, 'z');
  return l.locals + l.central + rec + zip64_locator(rec_at) + end_record(0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF);
}

// warehouse tests/unit/utils/test_zipfiles.py, reject/zip64_eocd_extensible_data.zip.
TEST(PeerArchive, Zip64EndRecordWithExtensibleDataIsRefused) {
  auto fs = findings_of(bytes_of(zip64_end_with_extensible_data(20)), kName);
  EXPECT_TRUE(says(fs, "the ZIP64 end record carries 20 bytes of extensible data")) << dump(fs);
  EXPECT_TRUE(has_rule(fs, "WC404")) << dump(fs);
  auto plain = findings_of(bytes_of(zip64_end_with_extensible_data(0)), kName);
  EXPECT_FALSE(has_rule(plain, "WC404")) << dump(plain);
}

// A wheel o-1.0 of `files` (and the dist-info files) whose RECORD rows are what `row_path` makes
// of each name ("" leaves the row out); RECORD lists itself last.
std::string wheel_with_record(const std::vector<RawEntry>& files,
                              const std::function<std::string(const std::string&)>& row_path) {
  auto entries = raw_wheel_entries("o", files);
  entries.pop_back();
  std::string record;
  for (const auto& e : entries)
    if (std::string p = row_path(e.name); !p.empty())
      record += csv_field(p) + "," + sha256_record(e.content) + "," + std::to_string(e.content.size()) + "\n";
  record += "o-1.0.dist-info/RECORD,,\n";
  entries.push_back(raw_file("o-1.0.dist-info/RECORD", record));
  return raw_zip(entries);
}

std::string backslashed(std::string s) {
  std::replace(s.begin(), s.end(), '/', '\\');
  return s;
}

// pypa/installer tests/test_records.py test_parse_record_entry_with_backslash_path: RECORD paths
// with '\\' are read with '/', and installer validates such a wheel; PyPI accepts it.
TEST(PeerRecord, BackslashPathsMatchTheirEntries) {
  auto fs = findings_of(bytes_of(wheel_with_record(
                            {raw_file("o/__init__.py", "x = 1\n"), raw_file("o/sub/a.py", "y = 2\n")}, backslashed)),
                        kName);
  for (const char* rule : {"WC301", "WC302", "WC304", "WC305", "WC306"}) EXPECT_FALSE(has_rule(fs, rule)) << dump(fs);
}

// The other way round: an entry whose *name* holds a backslash is no entry installer finds for
// its RECORD row (installer reads the row as 'o/a.py'), so it is unlisted and the row is missing.
TEST(PeerRecord, BackslashInAnEntryNameMatchesNoRow) {
  auto fs = findings_of(bytes_of(wheel_with_record({raw_file("o/__init__.py", ""), raw_file("o\\a.py", "y = 2\n")},
                                                   [](const std::string& n) { return n; })),
                        kName);
  EXPECT_TRUE(says(fs, "o\\a.py: archive entry is not listed in RECORD")) << dump(fs);
  EXPECT_TRUE(says(fs, "o/a.py: RECORD lists a file the archive lacks")) << dump(fs);
}

// pypa/installer tests/test_sources.py test_reject_signature_file_in_record (refused) and
// test_accept_wheel_with_signature_file (the same file not in RECORD: installed; WC210 warns).
TEST(PeerRecord, SignatureFileListedInRecordIsAnError) {
  const std::vector<RawEntry> files = {raw_file("o/__init__.py", ""),
                                       raw_file("o-1.0.dist-info/RECORD.jws", "{\"hash\": \"sha256=x\"}")};
  auto listed = findings_of(bytes_of(wheel_with_record(files, [](const std::string& n) { return n; })), kName);
  EXPECT_TRUE(std::any_of(listed.begin(), listed.end(), [](const Finding& f) {
    return f.rule == "WC301" && f.severity == Severity::error && f.entry == "o-1.0.dist-info/RECORD.jws" &&
           f.message.find("pypa/installer refuses to install the wheel") != std::string::npos;
  })) << dump(listed);
  auto unlisted = findings_of(
      bytes_of(wheel_with_record(files, [](const std::string& n) { return n.ends_with(".jws") ? "" : n; })), kName);
  EXPECT_FALSE(has_rule(unlisted, "WC301")) << dump(unlisted);
  EXPECT_FALSE(has_rule(unlisted, "WC304")) << dump(unlisted);
  EXPECT_TRUE(has_rule(unlisted, "WC210")) << dump(unlisted);
}

// --- What PyPI's upload check refuses and installers read (WC406) -------------------------------
// warehouse tests/unit/utils/test_zipfiles.py runs warehouse/utils/zipfiles.py over the archives
// in zipdata/reject/; each case below rebuilds one of them as a wheel (and the controls as the
// accept/ cases), and each verdict was reproduced by running zipfiles.py on these bytes. Under the
// default policy WC406 is a warning (pip installs these wheels); the pypi policy refuses them.

// A wheel o-1.0 whose first file entry `change` rewrites, and the findings under `policy`.
std::vector<Finding> upload_findings(const std::function<void(RawEntry&)>& change, const std::string& policy) {
  auto entries = raw_wheel_entries("o", {raw_file("o/__init__.py", "x = 1\n", true), raw_file("o/a.py", "y = 2\n")});
  change(entries[0]);
  return findings_of(bytes_of(raw_zip(entries)), kName, policy);
}

// The entry's finding of WC406 at `severity` saying `text`, and nothing else of the archive.
void expect_upload_refusal(const std::function<void(RawEntry&)>& change, const std::string& text) {
  auto fs = upload_findings(change, "default");
  EXPECT_TRUE(says(fs, "WC406 [warning] o/__init__.py: " + text)) << dump(fs);
  for (const char* id : {"WC401", "WC403", "WC404", "WC405", "WC302", "WC303"})
    EXPECT_FALSE(has_rule(fs, id)) << dump(fs);
  auto pypi = upload_findings(change, "pypi");
  EXPECT_TRUE(says(pypi, "WC406 [error] o/__init__.py: " + text)) << dump(pypi);
}

// The uncompressed size saturated in both headers, and a ZIP64 extra of the true size followed by
// `tail` (bytes the header did not ask for) in both.
std::function<void(RawEntry&)> zip64_usize_then(std::string tail) {
  return [tail](RawEntry& e) {
    uint64_t usize = e.usize;
    e.usize = 0xFFFFFFFF;
    e.local_extra = e.central_extra = le16(0x0001) + le16(uint16_t(8 + tail.size())) + le64(usize) + tail;
  };
}

// zipfiles.py _handle_central_directory_header: reject/cd_comment.zip.
TEST(PeerUpload, PerEntryCommentInTheCentralDirectory) {
  expect_upload_refusal([](RawEntry& e) { e.central_comment = "c"; },
                        "the central directory entry carries a 1-byte comment (PyPI refuses per-entry comments)");
}

// reject/data_descriptor.zip: a correct data descriptor, which zipfile and libarchive read.
TEST(PeerUpload, DataDescriptor) {
  expect_upload_refusal([](RawEntry& e) { e.descriptor = true; },
                        "a data descriptor follows the entry's data (flag bit 3) (PyPI's upload check refuses it)");
}

// reject/extra3byte.zip: three bytes after the last extra field, which zipfile skips.
TEST(PeerUpload, ThreeStrayBytesInTheExtraField) {
  expect_upload_refusal([](RawEntry& e) { e.local_extra = e.central_extra = "   "; },
                        "the local extra field ends in 3 stray bytes, too few for a field header");
}

// reject/zip64_extra_too_long.zip: the header saturates only the uncompressed size, and its ZIP64
// extra carries a compressed size too (zero). zipfile reads the one it was asked for; PyPI reads
// 16 bytes as both sizes.
TEST(PeerUpload, Zip64ExtraWithASizeTheHeaderDidNotAskFor) {
  expect_upload_refusal(
      zip64_usize_then(le64(0)),
      "the local ZIP64 extra field gives the sizes 0 -> 6 as PyPI reads it (the header deferred only the "
      "uncompressed size to it), the central directory " +
          std::to_string(raw_deflate("x = 1\n").size()) + " -> 6");
}

// reject/zip64_extra_usize.zip: an 8-byte ZIP64 extra for the uncompressed size of a DEFLATED
// entry; PyPI takes 8 bytes for both sizes.
TEST(PeerUpload, EightByteZip64ExtraOnACompressedEntry) {
  expect_upload_refusal(zip64_usize_then(""), "the local ZIP64 extra field holds 8 bytes on a compressed entry");
}

// zipfiles.py DISALLOW_DUPLICATE_EXTRA_IDS: two ZIP64 fields in one local header.
TEST(PeerUpload, TwoZip64ExtraFields) {
  expect_upload_refusal([](RawEntry& e) { e.local_extra = le16(0x0001) + le16(0) + le16(0x0001) + le16(0); },
                        "the local header holds two ZIP64 extra fields");
}

// A 12-byte ZIP64 extra (not 0, 8, 16, 24 or 28 bytes): zipfile reads the 8 it needs.
TEST(PeerUpload, Zip64ExtraOfAnOddLength) {
  expect_upload_refusal(zip64_usize_then(le32(0)),
                        "the local ZIP64 extra field is 12 bytes long, not 0, 8, 16, 24 or 28");
}

// The controls, each accepted by zipfiles.py: a ZIP64 extra of 16 bytes with the true sizes on an
// entry whose header asked for neither (accept/short_usize_zip64.zip reads ZIP64 sizes too), an
// empty ZIP64 extra, and a Unicode Path field beside one ZIP64 field.
TEST(PeerUpload, HonestExtraFieldsAreAccepted) {
  for (const auto& change : std::vector<std::function<void(RawEntry&)>>{
           [](RawEntry& e) { e.local_extra = le16(0x0001) + le16(16) + le64(e.usize) + le64(e.csize); },
           [](RawEntry& e) { e.local_extra = le16(0x0001) + le16(0); },
           [](RawEntry& e) { e.local_extra = le16(0x0001) + le16(0) + unicode_path_extra(e.name, e.name); },
           [](RawEntry&) {}}) {
    auto fs = upload_findings(change, "pypi");
    EXPECT_FALSE(has_rule(fs, "WC406")) << dump(fs);
    EXPECT_FALSE(has_rule(fs, "WC404")) << dump(fs);
  }
}

// reject/data_descriptor_zip64.zip: a data descriptor with 8-byte sizes after a local header
// whose ZIP64 extra is empty.
TEST(PeerUpload, Zip64DataDescriptor) {
  auto entries = raw_wheel_entries("o", {raw_file("o/__init__.py", "x = 1\n", true)});
  std::string locals, central;
  for (auto& e : entries) {
    central += central_record(e, locals.size());
    if (&e != &entries[0]) {
      locals += local_record(e);
      continue;
    }
    e.descriptor = true;
    e.local_extra = le16(0x0001) + le16(0);
    central.resize(central.size() - central_record(entries[0], 0).size());  // rewritten with the flag
    central += central_record(e, locals.size());
    locals += local_header(e) + e.data + le32(0x08074b50) + le32(e.crc) + le64(e.csize) + le64(e.usize);
  }
  std::string zip = locals + central + end_record(entries.size(), central.size(), locals.size());
  auto fs = findings_of(bytes_of(zip), kName, "pypi");
  EXPECT_TRUE(says(fs, "WC406 [error] o/__init__.py: a data descriptor follows the entry's data")) << dump(fs);
  EXPECT_FALSE(has_rule(fs, "WC404")) << dump(fs);
}

// --- PyPI's platform tags: warehouse forklift/legacy.py _valid_platform_tag, as data ------------
// (policies/pypi_platforms.json, generated by tools/gen_pypi_platforms.py at a pinned commit.)

std::vector<Finding> tagged_findings(const std::string& platform) {
  auto entries = raw_wheel_entries("o", {raw_file("o/__init__.py", "")}, "py3-none-" + platform);
  return findings_of(bytes_of(raw_zip(entries)), "o-1.0-py3-none-" + platform + ".whl");
}

// warehouse tests/unit/forklift/test_legacy.py test_upload_fails_with_unsupported_wheel_plat
// (musllinux ppc64, manylinux loongarch64 are well-formed PEP 600/656 tags PyPI refuses) and
// test_upload_succeeds_with_wheel (the accepted ones).
TEST(PeerPypiPlatforms, ArchitecturesOutsidePypisListsAreRefused) {
  auto musl = tagged_findings("musllinux_1_2_ppc64");
  EXPECT_TRUE(says(musl,
                   "WC106 [error] : platform tag 'musllinux_1_2_ppc64': PyPI accepts musllinux wheels for "
                   "aarch64, armv7l, i686, ppc64le, riscv64, s390x, x86_64 only (pypi/warehouse"))
      << dump(musl);
  auto loong = tagged_findings("manylinux_2_38_loongarch64");
  EXPECT_TRUE(says(loong, "platform tag 'manylinux_2_38_loongarch64': PyPI accepts manylinux wheels for"))
      << dump(loong);
  for (const char* ok : {"manylinux_2_38_riscv64", "manylinux_2_17_ppc64", "musllinux_1_2_ppc64le", "linux_armv6l",
                         "macosx_26_0_arm64", "macosx_10_9_x86_64", "ios_13_0_x86_64_iphonesimulator", "android_24_x86",
                         "pyemscripten_2026_0_wasm32", "win_arm64"}) {
    auto fs = tagged_findings(ok);
    EXPECT_FALSE(has_rule(fs, "WC106")) << ok << "\n" << dump(fs);
  }
}

// The refusal read straight from the data, as re.match reads it.
TEST(PeerPypiPlatforms, RefusalFollowsTheData) {
  const PypiPlatforms& d = load_policy("default").pypi_platforms;
  ASSERT_TRUE(d.known());
  EXPECT_EQ(pypi_platform_refusal("macosx_10_9_fat32", d),
            "PyPI accepts macOS wheels for the architectures arm64, fat, fat3, fat64, i386, intel, ppc, ppc64, "
            "universal, universal2, x86_64 only");
  EXPECT_EQ(pypi_platform_refusal("macosx_11_3_arm64", d), "PyPI accepts macOS 11 only as 11_0");
  EXPECT_NE(pypi_platform_refusal("macosx_27_0_arm64", d), "");
  EXPECT_EQ(pypi_platform_refusal("ios_17_0_arm64_iphoneos", d), "");
  EXPECT_NE(pypi_platform_refusal("ios_17_0_armv7_iphoneos", d), "");
  EXPECT_NE(pypi_platform_refusal("android_24_mips", d), "");
  EXPECT_NE(pypi_platform_refusal("linux_x86_64", d), "");
  PypiPlatforms none;
  EXPECT_EQ(pypi_platform_refusal("linux_x86_64", none), "") << "no data, no judgement";
}

// The data and the code cannot drift apart: every tag the data lets through is a tag
// classify_platform knows, and the regexes the data was read with are the ones implemented.
TEST(PeerPypiPlatforms, DataAndCodeAgree) {
  const PypiPlatforms& d = load_policy("default").pypi_platforms;
  EXPECT_EQ(d.regexes, pypi_platform_regexes_implemented())
      << "warehouse changed a platform regex: implement it in pypi_platform_refusal()";
  std::vector<std::string> tags(d.static_tags.begin(), d.static_tags.end());
  for (const auto& a : d.manylinux_arches) tags.push_back("manylinux_2_17_" + a);
  for (const auto& a : d.musllinux_arches) tags.push_back("musllinux_1_2_" + a);
  for (const auto& a : d.macosx_arches) {
    tags.push_back("macosx_10_9_" + a);
    for (const auto& m : d.macosx_major_versions) tags.push_back("macosx_" + m + "_0_" + a);
  }
  for (const auto& a : d.ios_arches) tags.push_back("ios_13_0_" + a + "_iphoneos");
  for (const auto& a : d.android_arches) tags.push_back("android_24_" + a);
  for (const auto& t : tags) {
    EXPECT_EQ(pypi_platform_refusal(t, d), "") << t;
    PlatformTag p = classify_platform(t);
    EXPECT_EQ(p.problem, "") << t << ": PyPI accepts it, classify_platform does not";
  }
  EXPECT_GT(tags.size(), 80u);
}

// tools/gen_pypi_platforms.py against the pinned legacy.py (WHEELCHECK_WAREHOUSE_LEGACY names a
// copy; otherwise it is fetched from GitHub at the pinned commit, checked by sha256, and the test
// skips where GitHub cannot be reached), then against a made-up legacy.py that changes one arch
// and holds a statement this Python cannot parse (PEP 758's bare except).
TEST(PeerPypiPlatforms, TableMatchesItsGenerator) {
  std::string src = WC_SOURCE_DIR, gen = "python3 " + shell_quote(src + "/tools/gen_pypi_platforms.py");
  testing::TempDir dir;
  const std::string shipped = src + "/policies/pypi_platforms.json";
  std::string made_up = R"PY(import re
_allowed_platforms = {"any", "win32"}
_macosx_platform_re = re.compile(r"macosx_(?P<major>\d+)_(?P<minor>\d+)_(?P<arch>.*)")
_macosx_arches = {"arm64"}
_macosx_major_versions = {"11"}
_ios_platform_re = re.compile(r"ios_(\d+)_(\d+)_(?P<arch>.*)_(iphoneos|iphonesimulator)")
_ios_arches = {"arm64"}
_android_platform_re = re.compile(r"android_(\d+)_(?P<arch>.*)")
_android_arches = {"x86"}
_linux_platform_re = re.compile(r"(?P<libc>(many|musl))linux_(\d+)_(\d+)_(?P<arch>.*)")
_jointlinux_arches = {"x86_64", "sparc"}
_manylinux_arches = _jointlinux_arches | {"ppc64"}
_musllinux_arches = _jointlinux_arches
_pyemscripten_platform_re = re.compile(r"pyemscripten_(?P<major>\d+)_(?P<minor>\d+)_wasm32")
def f():
    try:
        pass
    except ValueError, TypeError:
        pass
)PY";
  testing::write_file(dir.file("legacy.py"), std::vector<uint8_t>(made_up.begin(), made_up.end()));
  auto out = run_command(gen + " --legacy " + shell_quote(dir.file("legacy.py")) + " --commit 0 --out " +
                         shell_quote(dir.file("t.json")));
  ASSERT_EQ(out.exit_code, 0) << out.err;
  auto t = nlohmann::json::parse(testing::read_file(dir.file("t.json")));
  EXPECT_EQ(t["pypi_platforms"]["manylinux_arches"], nlohmann::json::parse(R"(["ppc64", "sparc", "x86_64"])"));
  EXPECT_EQ(t["pypi_platforms"]["musllinux_arches"], nlohmann::json::parse(R"(["sparc", "x86_64"])"));
  auto drift =
      run_command(gen + " --legacy " + shell_quote(dir.file("legacy.py")) + " --check " + shell_quote(shipped));
  EXPECT_EQ(drift.exit_code, 1);
  EXPECT_NE(drift.err.find("pypi_platforms.manylinux_arches: the source says"), std::string::npos) << drift.err;

  const char* legacy = std::getenv("WHEELCHECK_WAREHOUSE_LEGACY");
  const char* home = std::getenv("HOME");
  std::string how =
      legacy && *legacy
          ? "--legacy " + shell_quote(legacy)
          : "--fetch " + shell_quote(std::string(home ? home : "/tmp") + "/.cache/wheelcheck-tests/warehouse");
  auto ok = run_command(gen + " " + how + " --check " + shell_quote(shipped));
  if (ok.exit_code == 3)
    GTEST_SKIP() << "the pinned legacy.py is not reachable (" << ok.err
                 << "); set WHEELCHECK_WAREHOUSE_LEGACY to a copy of it to run the drift check";
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  EXPECT_NE(ok.out.find("agrees with pypi/warehouse 6b62157124ab legacy.py"), std::string::npos) << ok.out;
}

// --- The compression ratio is the whole wheel's (warehouse forklift/legacy.py _is_valid_dist_file,
// tests/unit/forklift/test_legacy.py test_zipfile_exceeds_compression_threshold) -----------------

// A wheel of one `zeros`-byte zero-filled entry beside `noise` bytes nothing compresses.
std::pair<std::vector<uint8_t>, std::string> zeros_and_noise(size_t zeros, size_t noise) {
  std::string random(noise, '\0');
  std::mt19937 gen(7);
  for (auto& c : random) c = static_cast<char>(gen());
  WheelBuilder b("padded", "1.0");
  b.add("padded/__init__.py", "").add("padded/noise.bin", random).add("padded/zeros.bin", std::string(zeros, '\0'));
  return {b.build(), b.filename()};
}

// 70 MiB of zeros (about 1000:1 alone) in a wheel that is about 43:1 as a whole: PyPI takes it, so
// no WC403, and the entry is inflated and its hash checked like any other.
TEST(PeerRatio, OneCompressibleEntryInAnOrdinaryWheelPasses) {
  auto [zip, name] = zeros_and_noise(70u << 20, 1600u << 10);
  double whole = double(70u << 20) / double(zip.size());
  ASSERT_GT(whole, 40.0);
  ASSERT_LT(whole, 46.0);
  auto fs = findings_of(zip, name);
  EXPECT_FALSE(has_rule(fs, "WC403")) << dump(fs);
  auto facts = facts_of(zip, name);
  EXPECT_FALSE(facts.find_entry("padded/zeros.bin")->sha256.empty()) << "inflated and hashed";
}

// The same entry in a wheel 55:1 as a whole: WC403 names the whole file's ratio.
TEST(PeerRatio, TheWholeWheelOverTheRatioIsRefused) {
  auto [zip, name] = zeros_and_noise(70u << 20, 1200u << 10);
  ASSERT_GT(double(70u << 20) / double(zip.size()), 50.0);
  auto fs = findings_of(zip, name);
  EXPECT_TRUE(says(fs, "WC403 [error] : the wheel's " + std::to_string(zip.size()) + " bytes inflate to")) << dump(fs);
}

}  // namespace
}  // namespace wc
