// The zip central directory, read through the checked cursor, with the structural checks that
// matter for untrusted wheels (PyPI's upload checks and zip-bomb shapes): local headers that
// disagree with the central directory, overlapping entries, prepended or trailing bytes, ZIP64.
// Entry data is decompressed elsewhere (libarchive, zip_stream.h); this file never inflates.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/source.h"

namespace wc {

enum class EntryKind { file, directory, symlink, other };

struct ZipEntry {
  std::string name;  // raw bytes of the central directory name
  // The name as Python's zipfile (pip, pypa/installer) decodes it, in UTF-8: the bytes themselves
  // when general-purpose bit 11 is set or the name is ASCII, their cp437 reading otherwise. Only
  // that reading is stored (it always differs from the bytes: each byte past 0x7f becomes two or
  // three), not a second copy of every name.
  const std::string& zipfile_name() const { return cp437_name.empty() ? name : cp437_name; }
  std::string cp437_name;       // empty when zipfile reads the name as it is
  uint16_t version_needed = 0;  // "version needed to extract" (central directory)
  uint16_t flags = 0;
  uint16_t method = 0;
  uint32_t crc32 = 0;
  uint64_t compressed_size = 0;
  uint64_t uncompressed_size = 0;
  uint64_t local_offset = 0;
  uint64_t data_offset = 0;  // set once the local header was read
  uint32_t external_attr = 0;
  uint8_t made_by_host = 0;  // 0 MS-DOS, 3 Unix, ...
  uint32_t unix_mode = 0;    // from external_attr when made_by_host is Unix
  EntryKind kind = EntryKind::file;
  size_t central_index = 0;
  // The Info-ZIP Unicode Path extra field (0x7075) of the central or local header, when present:
  // unzip extracts by it, whatever the name field says.
  std::optional<std::string> unicode_path;
  // Its compressed data overlaps another entry's record (the overlapping zip-bomb construction,
  // known from the central directory alone): never inflated.
  bool overlaps = false;
};

struct ZipProblem {
  std::string message;
  std::string entry;  // empty for archive-wide problems
  uint64_t offset = 0;
};

struct ZipIndex {
  std::vector<ZipEntry> entries;         // central directory order
  std::vector<ZipProblem> fatal;         // the archive cannot be read (WC404)
  std::vector<ZipProblem> inconsistent;  // readable but malformed: header mismatch, overlap, extra bytes (WC404)
  std::vector<ZipProblem> methods;       // compression methods other than STORED/DEFLATED (WC405)
  std::vector<ZipProblem> unsafe_names;  // names another extractor would write elsewhere (WC401)
  // What PyPI's upload check (warehouse utils/zipfiles.py) refuses though installers read the
  // archive alike: per-entry comments, data descriptors, stray or duplicate extra fields, ZIP64
  // extras it reads otherwise than zipfile does (WC406).
  std::vector<ZipProblem> upload_refusals;
  // Entries whose data overlaps another entry's (ZipEntry::overlaps) and what they declare.
  uint64_t overlapping_entries = 0, overlapping_bytes = 0;
  // Every local header was read, so every byte from the first local header to the central
  // directory was accounted to exactly one entry (false at --depth metadata).
  bool layout_checked = false;
  uint64_t archive_size = 0;
  uint64_t central_directory_offset = 0;
  bool zip64 = false;
  std::string comment;
  bool ok() const { return fatal.empty(); }
};

// `raw` read as code page 437 (what zipfile does with a name whose UTF-8 flag is clear), in UTF-8.
std::string cp437_to_utf8(std::string_view raw);

// Never throws for bad data: problems are recorded. IoError from the source still propagates.
// `local_wanted`, when given, limits the local-header checks (and data offsets) to the entries it
// accepts: a metadata-depth look at a remote wheel does not fetch thousands of local headers.
// With `local_wanted`, the reads that follow are announced to the source (Source::prefetch): the
// wanted headers and the first `data_wanted(entry)` bytes of their compressed data.
ZipIndex read_zip_index(Source& src, const std::function<bool(const ZipEntry&)>& local_wanted = {},
                        const std::function<uint64_t(const ZipEntry&)>& data_wanted = {});

// Where entry z's data begins, read from its local header alone (the fixed 30 bytes, then the name
// and the extra field), as read_zip_index's walk sets data_offset; nullopt when no local header is
// there. For a reader that meets the entries before the walk can run (a body still streaming in);
// the walk checks everything else about the header afterwards.
std::optional<uint64_t> local_data_offset(Source& src, const ZipEntry& z);

}  // namespace wc
