// Entry data read straight from the zip index: STORED entries copied, DEFLATED ones inflated by
// Intel ISA-L (raw deflate, several times zlib's speed here), the CRC-32 computed on the way (ISA-L's
// own, for both) and checked against the central directory, and the declared size enforced (an
// entry never yields more bytes than it declares). This is the fast path every entry takes;
// libarchive (zip_stream.h) stays the reference reader the tests compare against and the reader
// of entries this path does not handle (other compression methods, encrypted entries).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "io/source.h"
#include "io/zip_index.h"

namespace wc {

// Receives the entry's bytes in order: (data, size, offset in the entry). Returns false to stop
// reading (the rest is not inflated).
using EntrySink = std::function<bool(const uint8_t*, size_t, uint64_t)>;

struct EntryRead {
  std::string error;     // "" when the entry was read to its end intact (or the sink stopped)
  uint64_t bytes = 0;    // delivered to the sink
  bool stopped = false;  // the sink asked to stop
};

// Whether read_entry handles `z` (STORED or DEFLATED, not encrypted, local header located).
bool fast_path_supports(const ZipEntry& z);

// Reads one entry. Errors name what went wrong (a corrupt deflate stream, a CRC-32 that differs
// from the central directory's, data that ends early or runs past the declared size). IoError from
// the source propagates.
// `limit`: stop after that many bytes (a prefix: the rest is not inflated, and `stopped` is set).
EntryRead read_entry(Source& src, const ZipEntry& z, const EntrySink& sink, uint64_t limit = UINT64_MAX);

}  // namespace wc

namespace wc {

// Reads several entries (keyed by central directory index): the fast path for those it supports,
// libarchive for the rest. Returns per-entry error messages (absent when the entry was read intact
// or its sink stopped). IoError from the source becomes that entry's error.
std::map<size_t, std::string> read_entries(Source& src, const ZipIndex& idx, const std::map<size_t, EntrySink>& sinks);

}  // namespace wc
