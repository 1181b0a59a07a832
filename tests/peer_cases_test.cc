// Cases ported from the peers' own test suites (issue 31): each test names the peer test its case
// comes from; the verdict is the peer's, reproduced by running the peer (PyPI's upload checks in
// pypi/warehouse, pip and pypa/installer). The archives are built here byte by byte.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

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
      [](RawEntry& e) {
        uint64_t usize = e.usize;
        e.usize = 0xFFFFFFFF;
        e.local_extra = e.central_extra = le16(0x0001) + le16(16) + le64(usize) + le64(0);
      },
      "the local ZIP64 extra field gives the sizes 0 -> 6 as PyPI reads it (the header deferred only the "
      "uncompressed size to it), the central directory " +
          std::to_string(raw_deflate("x = 1\n").size()) + " -> 6");
}

// reject/zip64_extra_usize.zip: an 8-byte ZIP64 extra for the uncompressed size of a DEFLATED
// entry; PyPI takes 8 bytes for both sizes.
TEST(PeerUpload, EightByteZip64ExtraOnACompressedEntry) {
  expect_upload_refusal(
      [](RawEntry& e) {
        uint64_t usize = e.usize;
        e.usize = 0xFFFFFFFF;
        e.local_extra = e.central_extra = le16(0x0001) + le16(8) + le64(usize);
      },
      "the local ZIP64 extra field holds 8 bytes on a compressed entry");
}

// zipfiles.py DISALLOW_DUPLICATE_EXTRA_IDS: two ZIP64 fields in one local header.
TEST(PeerUpload, TwoZip64ExtraFields) {
  expect_upload_refusal([](RawEntry& e) { e.local_extra = le16(0x0001) + le16(0) + le16(0x0001) + le16(0); },
                        "the local header holds two ZIP64 extra fields");
}

// A 12-byte ZIP64 extra (not 0, 8, 16, 24 or 28 bytes): zipfile reads the 8 it needs.
TEST(PeerUpload, Zip64ExtraOfAnOddLength) {
  expect_upload_refusal(
      [](RawEntry& e) {
        uint64_t usize = e.usize;
        e.usize = 0xFFFFFFFF;
        e.local_extra = e.central_extra = le16(0x0001) + le16(12) + le64(usize) + le32(0);
      },
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

}  // namespace
}  // namespace wc
