// Zip records written byte by byte, for archives no well-behaved writer produces: hidden central
// directories, ZIP64 locators that point elsewhere, data descriptors, extra fields, gaps and
// overlapping entries. Each function returns one record; a test lays them out as it wants.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace wc::testing {

struct RawEntry {
  std::string name;
  std::string content;      // the uncompressed bytes
  bool deflate = false;     // raw deflate (zlib) instead of STORED
  bool descriptor = false;  // flag bit 3: sizes and CRC in a data descriptor after the data
  std::string local_extra;  // extra field bytes as written
  std::string central_extra;
  std::string central_comment;  // the central directory's per-entry comment
  uint32_t unix_mode = 0100644;
  // Header fields as other writers set them (the defaults are what this file always wrote).
  uint16_t made_by = 0x0314;     // host in the high byte (3 Unix, 0 MS-DOS, ...)
  uint16_t version_needed = 20;  // "version needed to extract", both headers
  uint16_t flags = 0x0800;       // general-purpose bits besides the descriptor bit (default: UTF-8)
  uint16_t local_flags_xor = 0;  // bits flipped in the local header only
  uint8_t dos_attr = 0;          // low byte of the external attributes (0x10: directory)

  // Filled by finish(): what the headers declare (tests may overwrite them to lie).
  std::string data;  // the compressed bytes as stored
  uint32_t crc = 0;
  uint64_t csize = 0, usize = 0;
  RawEntry& finish();
};

// A finished entry (data, CRC and sizes filled in).
RawEntry raw_file(std::string name, std::string content, bool deflate = false);

std::string le16(uint16_t v);
std::string le32(uint32_t v);
std::string le64(uint64_t v);
std::string raw_deflate(const std::string& in);  // zlib, level 9, no header
uint32_t crc32_of(const std::string& s);
uint32_t crc32_combine_of(uint32_t a, uint32_t b, uint64_t len_b);

// Local header + name + extra + data (+ descriptor, `descriptor_crc`/sizes as declared).
std::string local_record(const RawEntry& e);
std::string local_header(const RawEntry& e);  // header + name + extra only
std::string data_descriptor(uint32_t crc, uint64_t csize, uint64_t usize, bool signature = true);
std::string central_record(const RawEntry& e, uint64_t local_offset);
std::string end_record(uint64_t entries, uint64_t cd_size, uint64_t cd_offset, const std::string& comment = "");
std::string zip64_end_record(uint64_t entries, uint64_t cd_size, uint64_t cd_offset);
std::string zip64_locator(uint64_t record_offset);
// An Info-ZIP Unicode Path extra field (0x7075) naming `path` for an entry named `name`.
std::string unicode_path_extra(const std::string& name, const std::string& path);

// A whole archive from entries in order: local records, central directory, end record.
std::string raw_zip(std::vector<RawEntry> entries, const std::string& comment = "");
// The dist-info files (WHEEL, METADATA, RECORD listing `files` and itself) of a wheel named
// name-1.0 tagged `tag` (Root-Is-Purelib when the platform is any), with the files first.
std::vector<RawEntry> raw_wheel_entries(const std::string& name, const std::vector<RawEntry>& files,
                                        const std::string& tag = "py3-none-any");

std::vector<uint8_t> bytes_of(const std::string& s);

// Entries laid out in order from `base`: the local records, the central directory, the offsets.
struct Laid {
  std::string locals, central;
  std::vector<uint64_t> offsets;
};
Laid lay_out(const std::vector<RawEntry>& entries, uint64_t base = 0);

// The hostile shapes the gate tests and the fuzz seeds share:
// a stored entry hiding a second archive whose ZIP64 end record the real locator points at;
std::string hidden_zip64_wheel();
// a wheel whose first entry has a data descriptor (that lies about the CRC and size, when `lie`);
std::string descriptor_wheel(bool lie);
// Fifield's overlapping construction: `n` entries sharing one kernel of `kernel_bytes` zeros.
std::string overlapping_bomb(int n, size_t kernel_bytes);

}  // namespace wc::testing
