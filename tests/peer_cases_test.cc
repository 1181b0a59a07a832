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

}  // namespace
}  // namespace wc
