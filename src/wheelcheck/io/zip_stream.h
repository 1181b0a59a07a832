// Entry data through libarchive's seekable zip reader: each entry inflated once, in archive
// order, CRC-checked by libarchive, handed to a visitor block by block (memory does not grow with
// entry size). The bytes come from a Source through libarchive's callback API, never a temp file.
#pragma once

#include <locale.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "io/source.h"
#include "io/zip_index.h"

namespace wc {

// libarchive hands out a name only once it has converted it to the current locale's charset: in
// the C locale every non-ASCII name comes back NULL (a warning, "Pathname cannot be converted from
// UTF-8 to current locale"). While one of these lives, the calling thread reads in C.UTF-8 (where
// that conversion is the identity); nothing else in the process changes locale.
class Utf8ThreadLocale {
 public:
  Utf8ThreadLocale() : utf8_(newlocale(LC_ALL_MASK, "C.UTF-8", static_cast<locale_t>(0))) {
    if (utf8_) previous_ = uselocale(utf8_);
  }
  ~Utf8ThreadLocale() {
    if (!utf8_) return;
    uselocale(previous_);
    freelocale(utf8_);
  }
  Utf8ThreadLocale(const Utf8ThreadLocale&) = delete;
  Utf8ThreadLocale& operator=(const Utf8ThreadLocale&) = delete;

 private:
  locale_t utf8_;
  locale_t previous_ = static_cast<locale_t>(0);
};

class EntryVisitor {
 public:
  virtual ~EntryVisitor() = default;
  // Return false to skip this entry's data (directories, bombs, entries over a limit).
  virtual bool begin(const ZipEntry& e) = 0;
  // Return false to stop reading this entry (the rest is not inflated).
  virtual bool data(const uint8_t* p, size_t n) = 0;
  // `error` is empty when the entry was read to its end and libarchive found no fault (CRC, etc).
  virtual void end(const ZipEntry& e, const std::string& error) = 0;
};

// Problems libarchive reports about the archive as a whole (it failed to open, stopped early).
std::vector<ZipProblem> stream_entries(Source& src, const ZipIndex& idx, EntryVisitor& v);

// Reads some entries again (keyed by central directory index), for parsers that need bytes behind
// the streaming position. Each sink gets (data, size, offset in the entry) and returns false to stop
// inflating that entry. Returns per-entry error messages (absent when fine).
using RereadSink = std::function<bool(const uint8_t*, size_t, uint64_t)>;
std::map<size_t, std::string> reread_entries(Source& src, const ZipIndex& idx,
                                             const std::map<size_t, RereadSink>& sinks);

}  // namespace wc
